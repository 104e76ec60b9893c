#pragma once
// The augmentation preview's test preset: 12x12 synthetic grey images (64, 16 for the test) through a random crop
// (padding 2) and a random horizontal flip (p 0.5) into a linear classifier of 4 classes. The preview tests draw
// the `flip` node's variants, from a preset file, inline or through the inspector.

namespace tytest {

inline constexpr char kAugmentedImagesPreset[] = R"({
  "format": "trainyard-preset", "version": 1, "name": "augmented images",
  "nodes": [
    {"id": "data", "block": "dataset.synthetic", "params": {"kind": "images", "features": 12, "samples": 64, "test_samples": 16}},
    {"id": "crop", "block": "transform.random_crop", "params": {"padding": 2}},
    {"id": "flip", "block": "transform.random_hflip", "params": {"p": 0.5}},
    {"id": "flat", "block": "layer.flatten"},
    {"id": "fc", "block": "layer.linear", "params": {"out_features": 4}},
    {"id": "loss", "block": "loss.cross_entropy"},
    {"id": "opt", "block": "optimizer.sgd"}],
  "edges": [{"from": "data.features", "to": "crop.in"}, {"from": "crop.out", "to": "flip.in"}, {"from": "flip.out", "to": "flat.in"},
            {"from": "flat.out", "to": "fc.in"}, {"from": "fc.out", "to": "loss.input"}, {"from": "data.target", "to": "loss.target"},
            {"from": "loss.loss", "to": "opt.loss"}],
  "training": {"epochs": 1, "batch_size": 16, "device": "cpu"}})";

} // namespace tytest
