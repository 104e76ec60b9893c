#include "run_checkpoints.h"

#include "file_fingerprint.h"
#include "safetensors_file.h"

#include <QFileInfo>

namespace ty::cli {

Result<RunCheckpoint> verifiedRunCheckpoint(const QString &dbPath, qint64 runId, const QString &which, const QString &purpose)
{
    Result<RunCheckpoint> chosen = chooseRunCheckpoint(dbPath, runId, which, purpose);
    if (!chosen)
        return chosen.error();
    if (Status verified = verifyCheckpointFile(chosen.value().checkpoint, runId); !verified)
        return verified.error();
    return chosen;
}

Status verifyCheckpointFile(const CheckpointRecord &checkpoint, qint64 runId)
{
    if (checkpoint.sha256.isEmpty())
        return Status::success();  // recorded before checksums; such files (LibTorch archives) are refused on loading
    // The kind of file and its layout before its bytes are hashed: a FIFO would block the hash, a huge or sparse
    // file that is no checkpoint would take as long to hash as to read.
    if (Status layout = checkSafetensorsLayout(checkpoint.path); !layout) {
        Error e = layout.error();
        e.file = checkpoint.path;
        e.message = QStringLiteral("this is not the checkpoint run %1 wrote at step %2 (%3), so it is not loaded")
                        .arg(runId).arg(checkpoint.step).arg(e.message);
        return e;
    }
    const Result<QString> actual = fingerprintFiles({checkpoint.path});
    if (!actual)
        return actual.error();
    if (actual.value() == checkpoint.sha256)
        return Status::success();
    Error e;
    e.file = checkpoint.path;
    e.message = QStringLiteral("this is not the checkpoint run %1 wrote at step %2 (sha256 %3..., recorded %4...): "
                               "it was replaced or damaged, so it is not loaded")
                    .arg(runId).arg(checkpoint.step).arg(actual.value().left(12), checkpoint.sha256.left(12));
    return e;
}

} // namespace ty::cli
