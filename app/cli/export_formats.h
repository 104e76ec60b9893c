#pragma once
// The formats of trainyard-cli export beyond safetensors (cmd_export.cpp finds and checks the checkpoint).

#include "cli.h"
#include "run_records.h"
#include "safetensors_file.h"

namespace ty::cli {

struct OnnxExportRequest {
    qint64 runId = 0;
    RunInfo run;                  // its preset is the pipeline exported
    CheckpointRecord checkpoint;  // already verified against the run's record
    TensorFile checkpointFile;    // its contents
    QString output;
    bool json = false;
};

// Builds the ONNX model and writes it atomically. Exit code 2 naming the node and block when a node cannot be
// exported (nothing is written then), 0 on success.
int writeOnnxExport(const OnnxExportRequest &request, Io &io);

} // namespace ty::cli
