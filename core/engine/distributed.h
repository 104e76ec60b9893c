#pragma once
// Data-parallel training on PyTorch's c10d (docs/distributed.md): where this process stands in a distributed
// run, read from the launcher's environment, and its connection to the other processes. No LibTorch type here.

#include "error.h"

#include <QProcessEnvironment>
#include <QString>

#include <memory>

namespace ty {

namespace detail {
class Collectives;
}

struct DistributedSetup {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 0;  // processes on this machine (LOCAL_WORLD_SIZE, as torchrun and --nproc set it); 0: not known
    QString masterAddr = QStringLiteral("127.0.0.1");
    int masterPort = 29500;
    QString launcher;  // "torchrun" (RANK, WORLD_SIZE...), "slurm" (SLURM_PROCID...), "nproc"; empty: one process
    // torchrun's agent already serves the store at MASTER_ADDR:MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE): every
    // rank joins it as a client, under the key prefix of this attempt ("/worker/attempt_N", as PyTorch does).
    QString agentStorePrefix;
    bool distributed() const { return worldSize > 1; }
};

// The standard variables of torchrun and Kubeflow's PyTorchJob (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
// MASTER_PORT), else those of an srun job step (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID, with
// MASTER_ADDR and MASTER_PORT from the batch script). Neither: one process. A malformed value is an error naming the variable.
Result<DistributedSetup> distributedSetupFromEnvironment(const QProcessEnvironment &environment);

// The rendezvous store of a run that this process starts the other ranks of (--nproc), served before they start:
// on a port the kernel picks as the store binds it, so no other program can take the port between its choice and
// its use. Its port is the MASTER_PORT the other ranks are given; connect() then takes it as rank 0's store.
class StoreServer {
public:
    // Listens on `host` for `worldSize` - 1 other ranks, each store operation waiting up to timeoutSeconds.
    static Result<std::shared_ptr<StoreServer>> start(const QString &host, int worldSize, double timeoutSeconds);
    ~StoreServer();
    int port() const;
    struct Store;  // collectives.cpp's
    Store &store() { return *m_store; }

private:
    explicit StoreServer(std::unique_ptr<Store> store);
    std::unique_ptr<Store> m_store;
};

// One process's connection to the others of a distributed run: rendezvous through c10d's TCP store at
// MASTER_ADDR:MASTER_PORT (rank 0 serves it), collectives through c10d's Gloo or NCCL backend. Used by one
// training thread.
class ProcessGroup {
public:
    // Waits up to timeoutSeconds for every rank to arrive; every later collective waits as long for the others.
    // `backend` is training.dist_backend (auto, gloo, nccl) and `device` training.device (auto, cpu, cuda): auto
    // takes NCCL when training on CUDA with a GPU for each process on this machine and the build has NCCL, else
    // Gloo. Asking for NCCL where it cannot be is an error naming training.dist_backend.
    // `server`: rank 0's store, served already (StoreServer); none: rank 0 serves it at MASTER_PORT now.
    static Result<std::shared_ptr<ProcessGroup>> connect(const DistributedSetup &setup, double timeoutSeconds,
                                                         const QString &backend = QStringLiteral("auto"),
                                                         const QString &device = QStringLiteral("auto"),
                                                         const std::shared_ptr<StoreServer> &server = nullptr);
    // The backend connect() takes: "gloo" or "nccl", or an error naming training.dist_backend.
    static Result<QString> backendFor(const DistributedSetup &setup, const QString &backend, const QString &device);
    ~ProcessGroup();
    const DistributedSetup &setup() const { return m_setup; }
    int rank() const { return m_setup.rank; }
    int size() const { return m_setup.worldSize; }
    QString backend() const { return m_backend; }  // "gloo" or "nccl"
    detail::Collectives &collectives() { return *m_collectives; }

    // The first exchange of every rank: whether it is ready, and the sha256 of the preset it will train. Every
    // rank learns the same: the ranks that are not ready, and those whose preset differs from rank 0's.
    struct Agreement {
        QList<int> failed, different;
        bool ok() const { return failed.isEmpty() && different.isEmpty(); }
    };
    Agreement agree(bool ready, const QByteArray &presetSha256);

private:
    ProcessGroup(const DistributedSetup &setup, const QString &backend, std::unique_ptr<detail::Collectives> collectives);
    DistributedSetup m_setup;
    QString m_backend;
    std::unique_ptr<detail::Collectives> m_collectives;
};

} // namespace ty
