#!/usr/bin/python3
"""Writes ONNX models for the import tests (CTest fixture onnx_models), with Debian's python3-torch and
python3-torchvision and nothing downloaded: an MLP (Linear, GELU, Tanh, Sigmoid, Dropout; and a MatMul+Add one), a
small CNN (Conv, BatchNorm, ReLU, MaxPool, AvgPool, Flatten) and torchvision's ResNet-18 and MobileNetV2, each with seeded random
weights, exported by torch.onnx.export in evaluation mode, with fixed inputs and PyTorch's logits for them in
NAME.io.safetensors ("inputs", "logits"); and ResNet-18 again with its batch norms kept (resnet18_bn) and its
state_dict in resnet18_bn.state_dict.safetensors.

usage: make_onnx_models.py OUTDIR
Without PyTorch it writes OUTDIR/unavailable (the reason) and exits 0: the tests then skip, or fail under
TRAINYARD_REQUIRE_DATA (tests/common/required_data.h)."""

import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "fixtures"))
from fixture_files import done, output_dir, save_safetensors, unavailable  # noqa: E402

out = output_dir()
try:
    import torch
    import torchvision
    from torch import nn
except ImportError as e:
    unavailable(out, "python3-torch or python3-torchvision is not installed (%s)" % e)

warnings.filterwarnings("ignore")
torch.set_num_threads(1)


def randomize_batch_norms(model, generator):
    """Running statistics of their own, so that evaluation mode is not the identity."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=generator) + 0.5)
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=generator) + 0.5)
            m.bias.data.copy_(torch.randn(m.bias.shape, generator=generator) * 0.1)


def export_matmul_mlp(name, seed):
    """Dense layers as MatMul then Add (as TensorFlow's and other exporters write them), built with onnx.helper."""
    import onnx
    from onnx import helper, numpy_helper
    generator = torch.Generator().manual_seed(seed)
    w1, b1 = torch.randn(12, 16, generator=generator) * 0.3, torch.randn(16, generator=generator) * 0.1
    w2, b2 = torch.randn(16, 3, generator=generator) * 0.3, torch.randn(3, generator=generator) * 0.1
    inputs = torch.randn(4, 12, generator=generator)
    logits = torch.relu(inputs @ w1 + b1) @ w2 + b2
    inits = [numpy_helper.from_array(t.numpy(), n) for t, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    nodes = [helper.make_node("MatMul", ["input", "w1"], ["h1"], name="dense/MatMul"),
             helper.make_node("Add", ["h1", "b1"], ["h2"], name="dense/BiasAdd"),
             helper.make_node("Relu", ["h2"], ["h3"], name="dense/Relu"),
             helper.make_node("MatMul", ["h3", "w2"], ["h4"], name="dense_1/MatMul"),
             helper.make_node("Add", ["h4", "b2"], ["logits"], name="dense_1/BiasAdd")]
    graph = helper.make_graph(nodes, "matmul_mlp", [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["N", 12])],
                              [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, ["N", 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    save_safetensors({"inputs": inputs, "logits": logits}, os.path.join(out, name + ".io.safetensors"))


def export(name, model, sample_shape, batch=4, seed=0, keep_batch_norms=False):
    """keep_batch_norms: BatchNormalization nodes of their own rather than folded into the convolutions, so that the
    file has every tensor of the model's state_dict, which is written beside it as NAME.state_dict.safetensors."""
    generator = torch.Generator().manual_seed(seed + 1)
    randomize_batch_norms(model, generator)
    model.eval()
    inputs = torch.randn((batch,) + sample_shape, generator=generator)
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batch_norms else torch.onnx.TrainingMode.EVAL
    with torch.no_grad():
        logits = model(inputs)
        torch.onnx.export(model, inputs[:1], os.path.join(out, name + ".onnx"), input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, opset_version=14, training=mode)
    save_safetensors({"inputs": inputs, "logits": logits}, os.path.join(out, name + ".io.safetensors"))
    if keep_batch_norms:
        save_safetensors(model.state_dict(), os.path.join(out, name + ".state_dict.safetensors"))


with torch.no_grad():
    torch.manual_seed(0)
    export("mlp", nn.Sequential(nn.Linear(20, 32), nn.GELU(), nn.Dropout(0.2), nn.Linear(32, 24), nn.Tanh(), nn.Linear(24, 16),
                                nn.Sigmoid(), nn.Linear(16, 5)), (20,))
    torch.manual_seed(1)
    export("cnn", nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                nn.Conv2d(8, 16, 3, stride=1, padding=1, bias=False), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
                                nn.Linear(16 * 4 * 4, 10)), (1, 16, 16))
    torch.manual_seed(2)
    export("resnet18", torchvision.models.resnet18(num_classes=10), (3, 64, 64), batch=2)
    torch.manual_seed(6)  # its batch norms kept: torchvision's weights load into the import with map "torchvision"
    export("resnet18_bn", torchvision.models.resnet18(num_classes=10), (3, 64, 64), batch=2, seed=6, keep_batch_norms=True)
    torch.manual_seed(5)  # depthwise (grouped) convolutions, Clip(0, 6), residual Adds
    export("mobilenet_v2", torchvision.models.mobilenet_v2(num_classes=10), (3, 64, 64), batch=2, seed=5)
    # Not importable, for the refusals: an op without a rule (Elu is not one of them; Selu is).
    torch.manual_seed(3)
    export("unknown_op", nn.Sequential(nn.Linear(6, 4), nn.SELU(), nn.Linear(4, 3)), (6,))
    export_matmul_mlp("matmul_mlp", 4)

done(out, "torch %s, torchvision %s" % (torch.__version__, torchvision.__version__))
