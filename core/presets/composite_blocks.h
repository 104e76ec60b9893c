#pragma once
// Composite blocks: a preset's `blocks` section defines blocks made of other blocks (docs/presets.md). A
// definition is an inner graph of transforms, layers and other composites, named input and output ports mapped
// to inner ports, and exposed parameters, each bound to inner parameters. A node uses one by its name, like a
// built-in block, optionally `repeat`ed N times in a chain.

#include "block_registry.h"
#include "error.h"
#include "preset.h"

#include <QList>
#include <QMap>

namespace ty {

struct ExposedParam {
    ParamSpec spec;
    QStringList bind;  // inner "NODE.PARAM" paths set to its value
};

struct CompositeDefinition {
    QString name;
    QString description;
    PipelineGraph graph;
    QMap<QString, QList<Endpoint>> inputs;  // outer input port -> the inner input ports it feeds
    QMap<QString, Endpoint> outputs;        // outer output port -> the inner output port it is
    QList<ExposedParam> params;

    const ExposedParam *param(const QString &name) const;
};

// Parses the definition `name` of a preset's `blocks` section. Errors name the file, the block and the field.
Result<CompositeDefinition> compositeFromJson(const QString &name, const QJsonObject &json, const QString &file = {});
QJsonObject compositeToJson(const CompositeDefinition &definition);

// The inner graph of one use of `definition`, with a node's `values` bound in: each exposed parameter (the
// node's value, else its default) into the inner parameters it binds, then inner parameters set by path
// ("conv1.kernel_size", "unit1.conv1.kernel_size"; "/" reads as "."), which win. A value naming no exposed
// parameter or inner node, or one its spec refuses, is a problem whose field is the value's key; with any
// problem the graph is not to be used.
PipelineGraph bindComposite(const CompositeDefinition &definition, const QJsonObject &values, QList<Error> *problems);

// The block a definition is to the canvas, validation, --set and the inspector: category layer, its ports as
// tensor ports, its exposed parameters as parameters.
BlockDescriptor compositeDescriptor(const CompositeDefinition &definition);

// The built-in blocks plus the preset's composites (those that parse; a broken one is reported by expansion).
BlockRegistry presetBlockRegistry(const Preset &preset);
bool isCompositeBlock(const Preset &preset, const QString &blockType);

// A user's library of composites: *.trainyard-block.json files in `folder` (by default
// ~/.local/share/trainyard/blocks), each one definition with its "name" and the composites it uses ("uses").
// Files that do not parse are skipped and listed in `problems`.
struct LibraryBlock {
    QString name;
    QJsonObject definition;  // as in a preset's `blocks` section
    QJsonObject uses;        // the definitions of the composites it uses, by name
    QString path;
};
QString defaultBlockLibraryFolder();
QList<LibraryBlock> loadBlockLibrary(const QString &folder, QStringList *problems = nullptr);
// Saves the preset's composite `name`, with the composites it uses, as `folder`/NAME.trainyard-block.json.
Status saveLibraryBlock(const Preset &preset, const QString &name, const QString &folder);
// The composites the definition `name` uses, directly or through others.
QStringList compositesUsedBy(const Preset &preset, const QString &name);

// Copies `block` (and the composites it uses that the preset lacks) into the preset's `blocks` section, so a
// shared preset stays self-contained. A definition of the same name is replaced.
void embedLibraryBlock(Preset *preset, const LibraryBlock &block);

} // namespace ty
