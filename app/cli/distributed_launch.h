#pragma once
// The distributed side of `run` and `resume` (docs/distributed.md). With --nproc N this process is rank 0 and
// starts ranks 1 to N-1 as processes of the same command on this machine; a process started by a launcher
// (torchrun, srun, Kubeflow's PyTorchJob) reads its place from the environment. Rank 0 writes the run
// database and the checkpoints; the other ranks train their shards and record nothing.

#include "cli.h"
#include "cli_args.h"
#include "trainer.h"
#include "training_settings.h"

#include <QProcess>

#include <memory>
#include <vector>

namespace ty::cli {

class DistributedLaunch {
public:
    // Waits a while for the ranks it started, then ends them. A rank started by a launcher that leaves before it
    // joined (its preset or data was refused) joins to tell the others, which then end at once instead of
    // waiting training.dist_timeout for it.
    ~DistributedLaunch();
    const DistributedSetup &setup() const { return m_setup; }
    bool distributed() const { return m_setup.distributed(); }
    bool writesRun() const { return m_setup.rank == 0; }
    // The connected group, once join() succeeded; null for one process.
    std::shared_ptr<ProcessGroup> group() const { return m_group; }
    // LibTorch's threads for this process: the machine's cores shared by the ranks on it, unless the preset sets
    // training.threads. 0: LibTorch's default.
    int threads() const { return m_threads; }
    // BadInput (and the error printed) when training.dist_backend asks for a backend this build or machine cannot
    // give (docs/distributed.md); else Success. Callers check it before join(), which assumes it passed.
    int checkBackend(const TrainingSettings &settings, const Args &args, Io &io) const;
    // Starts the other ranks (--nproc) and joins the group, on the backend of training.dist_backend, waiting
    // training.dist_timeout. Returns Success, or prints the error and returns RunFailed.
    int join(const QString &command, const QStringList &arguments, const TrainingSettings &settings, const Args &args, Io &io);
    // The record of a distributed run: world size, backend and launcher (for the run's provenance).
    QJsonObject record() const;

    // --nproc N and the environment: the place of this process, or a usage error (printed; returns nullptr).
    static std::unique_ptr<DistributedLaunch> fromArguments(const Args &args, Io &io);

private:
    DistributedSetup m_setup;
    int m_nproc = 1;  // ranks this process starts itself, counting itself (--nproc)
    int m_threads = 0;
    std::shared_ptr<ProcessGroup> m_group;
    bool m_joined = false;  // join() was called
    std::vector<std::unique_ptr<QProcess>> m_ranks;
};

// A rank other than 0 trains with a prepared run and records nothing; returns the exit code.
int trainWorkerRank(PreparedTraining &training, const DistributedLaunch &launch, Io &io);

} // namespace ty::cli
