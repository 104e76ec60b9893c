#pragma once
// A preset: a named pipeline graph plus its training settings. Data only; saved as *.trainyard.json.

#include "pipeline_graph.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

namespace ty {

struct Preset {
    static constexpr int kFormatVersion = 1;

    QString name;
    QString description;
    PipelineGraph graph;
    QJsonObject training;   // explicit training settings; missing keys take trainingSpecs() defaults
    QJsonObject blocks;     // composite block definitions by name (composite_blocks.h), as written
    QString sourcePath;     // where it was loaded from (not saved); relative data paths resolve against it

    QString baseDir() const;  // folder of sourcePath, or the current directory

    bool operator==(const Preset &other) const
    {
        return name == other.name && description == other.description && graph == other.graph
            && training == other.training && blocks == other.blocks;
    }
};

// Every effective parameter, flattened: "conv1.out_channels" -> "32", "training.epochs" -> "10".
QMap<QString, QString> flattenParams(const Preset &preset);

// sha256 (hex) of the preset's canonical JSON: equal presets hash equally whatever their key order.
QString presetHash(const Preset &preset);

} // namespace ty
