#pragma once
// The parsed `training` and `blocks` sections of a preset. Each version of a section is parsed once: at load, or
// at its first use after an edit, and the result travels with the preset's copies (Preset::sections), so the
// planner, validation, the engine, the CLI and the editor's views all read the same parse. A copy whose section
// was changed since (an edit, a --set, a stage's overrides) parses its new version at its first use.
//
// A parsed section never changes once made (a stage's section is kept beside it, under a lock): safe to share
// between threads.

#include "block_registry.h"
#include "composite_blocks.h"
#include "issue.h"
#include "preset.h"
#include "training_settings.h"
#include "training_stages.h"

#include <QList>
#include <QMap>

#include <memory>
#include <mutex>

namespace ty {

// The `training` section, parsed.
struct TrainingSection {
    QJsonObject json;          // the section it was parsed from
    TrainingSettings settings; // every key with its effective value (TrainingSettings::fromJson)
    Issues valueIssues;        // its keys and values against trainingSpecs() (validateTraining)
    ParsedStages stages;       // the `stages` list as written (training_stages.h)
    ParsedInitFrom initFrom;   // `init_from` as written

    // The section of stage `index`, whose overrides of training keys made `json` of this section: parsed at the
    // first call, the same afterwards while `json` is the same, so planning the stages again after an edit of the
    // graph parses nothing.
    std::shared_ptr<const TrainingSection> stageSection(int index, const QJsonObject &json) const;

private:
    mutable std::mutex m_stageMutex;
    mutable QMap<int, std::shared_ptr<const TrainingSection>> m_stageSections;
};

// The `blocks` section, parsed: every composite definition, and the registry of the preset's blocks.
struct BlocksSection {
    QJsonObject json;                                 // the section it was parsed from
    QMap<QString, CompositeDefinition> definitions;   // those that parse, by name
    QMap<QString, Error> problems;                    // why the others do not, by name (the error names the file)
    BlockRegistry registry;  // the built-in blocks plus each definition that parses and is not named like a built-in
};

// The parsed section of `preset`'s current `training` or `blocks`: the one it carries when it was parsed from the
// same JSON, else parsed now and kept in the preset (and in the copies made from it afterwards).
std::shared_ptr<const TrainingSection> trainingSection(const Preset &preset);
std::shared_ptr<const BlocksSection> blocksSection(const Preset &preset);

// Shorthands.
TrainingSettings trainingSettings(const Preset &preset);
// The definition `name` of the preset's `blocks`, or why it has none that parses.
Result<CompositeDefinition> compositeDefinition(const Preset &preset, const QString &name);

// How many sections this process has parsed so far (an empty `blocks` costs no parse): what tests count.
struct SectionParses {
    int training = 0;
    int blocks = 0;
};
SectionParses sectionParses();

} // namespace ty
