#!/usr/bin/python3
"""Writes torchvision models with seeded random weights for the model library's tests (CTest fixture
torchvision_weights), with Debian's python3-torch and python3-torchvision and nothing downloaded (weights=None):
ResNet-18, ResNet-34 and MobileNetV2, each as a safetensors file of its state_dict under torchvision's own names
(batch norm's weights, biases and running statistics drawn at random too, so that loading them matters), and fixed
64 x 64 RGB inputs in [0, 1] with the model's logits in evaluation mode for them, after ImageNet's normalisation (the
bundled presets' norm node). VGG-11 with batch norm is left out: its classifier alone is 500 MB of float32.

usage: make_torchvision_weights.py OUTDIR
Without PyTorch or torchvision it writes OUTDIR/unavailable (the reason) and exits 0: the tests then skip, or fail
under TRAINYARD_REQUIRE_DATA (tests/common/required_data.h)."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "fixtures"))
from fixture_files import done, output_dir, save_safetensors, unavailable  # noqa: E402

out = output_dir()
try:
    import torch
    from torch import nn
    import torchvision
except ImportError as e:  # python3-torch or python3-torchvision is not installed
    unavailable(out, "python3-torch and python3-torchvision are needed (%s)" % e)

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
torch.manual_seed(0)
inputs = torch.rand(4, 3, 64, 64)
timings = {}
for name in ("resnet18", "resnet34", "mobilenet_v2"):
    started = time.time()
    torch.manual_seed(1)
    model = getattr(torchvision.models, name)(weights=None, num_classes=10)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.copy_(torch.rand_like(module.weight) * 0.5 + 0.75)
                module.bias.copy_(torch.randn_like(module.bias) * 0.1)
                module.running_mean.copy_(torch.randn_like(module.running_mean) * 0.1)
                module.running_var.copy_(torch.rand_like(module.running_var) * 0.5 + 0.75)
                module.num_batches_tracked.fill_(100)
    model.eval()
    with torch.no_grad():
        logits = model((inputs - MEAN) / STD)
    save_safetensors(model.state_dict(), os.path.join(out, name + ".safetensors"))
    save_safetensors({"inputs": inputs, "logits": logits}, os.path.join(out, name + "-io.safetensors"))
    timings[name] = round(time.time() - started, 2)

done(out, "torch %s, torchvision %s; seconds per model: %s" % (torch.__version__, torchvision.__version__, json.dumps(timings)))
