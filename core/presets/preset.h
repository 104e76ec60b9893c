#pragma once
// A preset: a named pipeline graph plus its training settings. Data only; saved as *.trainyard.json.

#include "pipeline_graph.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

#include <memory>

namespace ty {

struct TrainingSection;
struct BlocksSection;

// The parsed `training` and `blocks` of a preset (preset_sections.h), carried with it and copied with it, so that
// each version of a section is parsed once however many copies read it. Not part of the preset's value: set by
// trainingSection() and blocksSection() alone, which check it against the JSON before they use it. Safe to read
// and set from several threads.
class ParsedSections {
public:
    ParsedSections() = default;
    ParsedSections(const ParsedSections &other);
    ParsedSections &operator=(const ParsedSections &other);

    std::shared_ptr<const TrainingSection> training() const;
    std::shared_ptr<const BlocksSection> blocks() const;
    void setTraining(std::shared_ptr<const TrainingSection> section) const;
    void setBlocks(std::shared_ptr<const BlocksSection> section) const;

private:
    mutable std::shared_ptr<const TrainingSection> m_training;
    mutable std::shared_ptr<const BlocksSection> m_blocks;
};

struct Preset {
    static constexpr int kFormatVersion = 1;

    QString name;
    QString description;
    QString hypothesis;     // what the experiment is expected to show; recorded with each run of it
    PipelineGraph graph;
    QJsonObject training;   // explicit training settings; missing keys take trainingSpecs() defaults
    QJsonObject blocks;     // composite block definitions by name (composite_blocks.h), as written
    QString sourcePath;     // where it was loaded from (not saved); relative data paths resolve against it
    ParsedSections sections;  // `training` and `blocks` parsed (not saved, not compared): read through preset_sections.h

    QString baseDir() const;  // folder of sourcePath, or the current directory

    bool operator==(const Preset &other) const
    {
        return name == other.name && description == other.description && hypothesis == other.hypothesis && graph == other.graph
            && training == other.training && blocks == other.blocks;
    }
};

// Relative, non-empty paths made absolute against preset->baseDir(): the built-in blocks' Path parameters (data
// files) and the training section's (training.tensorboard_dir). For a copy of the preset that lives elsewhere (the
// app's worker snapshot, a document merged from overlays): it reads and writes the same files.
void makePathsAbsolute(Preset *preset);

// Every effective parameter, flattened: "conv1.out_channels" -> "32", "training.epochs" -> "10".
QMap<QString, QString> flattenParams(const Preset &preset);

// sha256 (hex) of the preset's canonical JSON: equal presets hash equally whatever their key order.
QString presetHash(const Preset &preset);

} // namespace ty
