#!/usr/bin/python3
"""Writes another tool's weights for the warm-start import tests (CTest fixture foreign_weights), with Debian's
python3-torch and nothing downloaded: PyTorch nn.Sequential models with seeded random weights, their state_dicts as
safetensors files (written by hand: Debian has no safetensors package; the format is an 8-byte header length, a
JSON header, then the raw little-endian bytes), fixed inputs with PyTorch's logits for them, the inputs as the data
files of Trainyard presets, and the same state_dict pickled by torch.save (which Trainyard must refuse).

usage: make_foreign_weights.py OUTDIR
Without PyTorch it writes OUTDIR/unavailable (the reason) and exits 0: the tests then skip, or fail under
TRAINYARD_REQUIRE_DATA (tests/common/required_data.h)."""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "fixtures"))
from fixture_files import done, output_dir, save_safetensors, unavailable  # noqa: E402

out = output_dir()
try:
    import torch
    from torch import nn
except ImportError as e:  # python3-torch is not installed
    unavailable(out, "python3-torch is not installed (%s)" % e)


def write_idx(path, array_u8):
    """An IDX file of unsigned bytes (type 0x08)."""
    dims = list(array_u8.shape)
    with open(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, 0x08, len(dims)))
        for d in dims:
            f.write(struct.pack(">I", d))
        f.write(array_u8.contiguous().numpy().tobytes())


torch.manual_seed(0)
samples = 24

# A multilayer perceptron on 8 features: nn.Sequential gives its tensors the indices 1, 3 and 5.
mlp = nn.Sequential(nn.Flatten(), nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 12), nn.ReLU(), nn.Linear(12, 4)).eval()
# Inputs that CSV text holds exactly: multiples of 1/64 in [-2, 2].
mlp_inputs = torch.randint(-128, 129, (samples, 8)).float() / 64.0
with torch.no_grad():
    mlp_logits = mlp(mlp_inputs)
state = mlp.state_dict()
save_safetensors(state, os.path.join(out, "mlp.safetensors"))
for dtype, suffix in ((torch.float64, "f64"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
    save_safetensors({k: v.to(dtype) for k, v in state.items()}, os.path.join(out, "mlp-%s.safetensors" % suffix))
io = {"inputs": mlp_inputs, "logits": mlp_logits}
with torch.no_grad():
    for dtype, suffix in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        rounded = nn.Sequential(nn.Flatten(), nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 12), nn.ReLU(), nn.Linear(12, 4)).eval()
        rounded.load_state_dict({k: v.to(dtype).to(torch.float32) for k, v in state.items()})
        io["logits_" + suffix] = rounded(mlp_inputs)
save_safetensors(io, os.path.join(out, "mlp-io.safetensors"))
labels = ["c%d" % (i % 4) for i in range(samples)]
with open(os.path.join(out, "mlp.csv"), "w") as f:
    f.write(",".join("f%d" % i for i in range(8)) + ",label\n")
    for row, label in zip(mlp_inputs.tolist(), labels):
        f.write(",".join(repr(v) for v in row) + "," + label + "\n")
with open(os.path.join(out, "mlp-probabilities.json"), "w") as f:
    json.dump(torch.softmax(mlp_logits, dim=1).tolist(), f)

# The pickles Trainyard refuses: torch.save's zip archive and its legacy format.
torch.save(state, os.path.join(out, "mlp.pt"))
torch.save(state, os.path.join(out, "mlp-legacy.pth"), _use_new_zipfile_serialization=False)

# A small CNN with batch norm on 8x8 grey images, in evaluation mode with running statistics of its own.
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(4, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))
with torch.no_grad():
    for bn in (cnn[1], cnn[5]):
        bn.weight.copy_(torch.rand_like(bn.weight) + 0.5)
        bn.bias.copy_(torch.randn_like(bn.bias) * 0.1)
        bn.running_mean.copy_(torch.randn_like(bn.running_mean) * 0.2)
        bn.running_var.copy_(torch.rand_like(bn.running_var) + 0.5)
        bn.num_batches_tracked.fill_(7)
cnn.eval()
images = torch.randint(0, 256, (samples, 8, 8), dtype=torch.uint8)
cnn_inputs = images.float().div(255.0).unsqueeze(1)
with torch.no_grad():
    cnn_logits = cnn(cnn_inputs)
save_safetensors(cnn.state_dict(), os.path.join(out, "cnn.safetensors"))
save_safetensors({"inputs": cnn_inputs, "logits": cnn_logits}, os.path.join(out, "cnn-io.safetensors"))
write_idx(os.path.join(out, "cnn-images.idx"), images)
write_idx(os.path.join(out, "cnn-labels.idx"), torch.arange(samples, dtype=torch.uint8) % 3)
with open(os.path.join(out, "cnn-probabilities.json"), "w") as f:
    json.dump(torch.softmax(cnn_logits, dim=1).tolist(), f)



def write_preset(name, description, data, layers, training):
    """A Trainyard preset whose network is the PyTorch model's: the layers in order, then loss, metric, optimizer."""
    nodes = [{"id": "data", "block": data[0], "params": data[1]}]
    nodes += [{"id": i, "block": b, "params": p} for i, b, p in layers]
    nodes += [{"id": "loss", "block": "loss.cross_entropy"}, {"id": "accuracy", "block": "metric.accuracy"},
              {"id": "opt", "block": "optimizer.adam", "params": {"lr": 0.001}}]
    port = "features" if data[0] == "dataset.csv" else "images"
    target = "target" if data[0] == "dataset.csv" else "labels"
    chain = ["data." + port] + [i for i, _, _ in layers]
    edges = [{"from": (a if "." in a else a + ".out"), "to": b + ".in"} for a, b in zip(chain, chain[1:])]
    last = layers[-1][0] + ".out"
    edges += [{"from": last, "to": "loss.input"}, {"from": "data." + target, "to": "loss.target"},
              {"from": last, "to": "accuracy.input"}, {"from": "data." + target, "to": "accuracy.target"},
              {"from": "loss.loss", "to": "opt.loss"}]
    preset = {"format": "trainyard-preset", "version": 1, "name": name, "description": description,
              "training": training, "nodes": nodes, "edges": edges}
    with open(os.path.join(out, name + ".trainyard.json"), "w") as f:
        json.dump(preset, f, indent=2)


# The PyTorch models as Trainyard presets: the MLP with 0 epochs and no source (given on the command line), the CNN
# starting from its file through an explicit map.
write_preset("mlp", "nn.Sequential(Flatten, Linear(8, 16), ReLU, Linear(16, 12), ReLU, Linear(12, 4)) on mlp.csv",
             ("dataset.csv", {"path": "mlp.csv", "target": "label", "standardize": False, "test_fraction": 0.25}),
             [("flatten", "layer.flatten", {}), ("fc1", "layer.linear", {"out_features": 16}), ("relu1", "layer.relu", {}),
              ("fc2", "layer.linear", {"out_features": 12}), ("relu2", "layer.relu", {}),
              ("fc3", "layer.linear", {"out_features": 4})],
             {"epochs": 0, "batch_size": 8, "device": "cpu", "seed": 0})
cnn_map = {"conv1.weight": "0.weight", "conv1.bias": "0.bias", "bn1.weight": "1.weight", "bn1.bias": "1.bias",
           "bn1.running_mean": "1.running_mean", "bn1.running_var": "1.running_var",
           "conv2.weight": "4.weight", "conv2.bias": "4.bias", "bn2.weight": "5.weight", "bn2.bias": "5.bias",
           "bn2.running_mean": "5.running_mean", "bn2.running_var": "5.running_var", "fc.weight": "8.weight", "fc.bias": "8.bias"}
write_preset("cnn", "nn.Sequential(Conv2d(1, 4, 3, padding=1), BatchNorm2d(4), ReLU, MaxPool2d(2), Conv2d(4, 8, 3), "
             "BatchNorm2d(8), ReLU, Flatten, Linear(32, 3)) on 8x8 images",
             ("dataset.idx", {"train_images": "cnn-images.idx", "train_labels": "cnn-labels.idx",
                              "test_images": "cnn-images.idx", "test_labels": "cnn-labels.idx", "val_count": 4}),
             [("conv1", "layer.conv2d", {"out_channels": 4, "kernel_size": 3, "padding": 1}), ("bn1", "layer.batchnorm2d", {}),
              ("relu1", "layer.relu", {}), ("pool", "layer.maxpool2d", {"kernel_size": 2}),
              ("conv2", "layer.conv2d", {"out_channels": 8, "kernel_size": 3}), ("bn2", "layer.batchnorm2d", {}),
              ("relu2", "layer.relu", {}), ("flatten", "layer.flatten", {}), ("fc", "layer.linear", {"out_features": 3})],
             {"epochs": 0, "batch_size": 8, "device": "cpu", "seed": 0,
              "init_from": {"file": "cnn.safetensors", "map": cnn_map}})

done(out, "torch %s" % torch.__version__)
