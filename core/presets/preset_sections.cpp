#include "preset_sections.h"

#include "graph_validation.h"

#include <atomic>

namespace ty {

namespace {

std::atomic<int> g_trainingParses{0};
std::atomic<int> g_blocksParses{0};

std::shared_ptr<const TrainingSection> parseTrainingSection(const QJsonObject &json)
{
    ++g_trainingParses;
    auto section = std::make_shared<TrainingSection>();
    section->json = json;
    section->settings = TrainingSettings::fromJson(json);
    section->valueIssues = validateTraining(json);
    section->stages = parseStages(json);
    section->initFrom = parseInitFrom(json);
    return section;
}

std::shared_ptr<const BlocksSection> parseBlocksSection(const QJsonObject &json, const QString &file)
{
    if (json.isEmpty()) {
        static const std::shared_ptr<const BlocksSection> none = [] {
            auto empty = std::make_shared<BlocksSection>();
            empty->registry = BlockRegistry::builtin();
            return empty;
        }();
        return none;
    }
    ++g_blocksParses;
    auto section = std::make_shared<BlocksSection>();
    section->json = json;
    section->registry = BlockRegistry::builtin();
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        Result<CompositeDefinition> definition = compositeFromJson(it.key(), it.value().toObject(), file);
        if (!definition) {
            section->problems.insert(it.key(), definition.error());
            continue;
        }
        if (!BlockRegistry::builtin().find(it.key()))
            section->registry.add(compositeDescriptor(definition.value()));
        section->definitions.insert(it.key(), std::move(definition).value());
    }
    return section;
}

} // namespace

ParsedSections::ParsedSections(const ParsedSections &other)
    : m_training(other.training()), m_blocks(other.blocks())
{
}

ParsedSections &ParsedSections::operator=(const ParsedSections &other)
{
    if (this != &other) {
        setTraining(other.training());
        setBlocks(other.blocks());
    }
    return *this;
}

std::shared_ptr<const TrainingSection> ParsedSections::training() const
{
    return std::atomic_load(&m_training);
}

std::shared_ptr<const BlocksSection> ParsedSections::blocks() const
{
    return std::atomic_load(&m_blocks);
}

void ParsedSections::setTraining(std::shared_ptr<const TrainingSection> section) const
{
    std::atomic_store(&m_training, std::move(section));
}

void ParsedSections::setBlocks(std::shared_ptr<const BlocksSection> section) const
{
    std::atomic_store(&m_blocks, std::move(section));
}

std::shared_ptr<const TrainingSection> TrainingSection::stageSection(int index, const QJsonObject &stageJson) const
{
    std::lock_guard<std::mutex> lock(m_stageMutex);
    std::shared_ptr<const TrainingSection> &known = m_stageSections[index];
    if (!known || known->json != stageJson)
        known = parseTrainingSection(stageJson);
    return known;
}

std::shared_ptr<const TrainingSection> trainingSection(const Preset &preset)
{
    std::shared_ptr<const TrainingSection> carried = preset.sections.training();
    if (carried && carried->json == preset.training)
        return carried;
    std::shared_ptr<const TrainingSection> parsed = parseTrainingSection(preset.training);
    preset.sections.setTraining(parsed);
    return parsed;
}

std::shared_ptr<const BlocksSection> blocksSection(const Preset &preset)
{
    std::shared_ptr<const BlocksSection> carried = preset.sections.blocks();
    if (carried && carried->json == preset.blocks)
        return carried;
    std::shared_ptr<const BlocksSection> parsed = parseBlocksSection(preset.blocks, preset.sourcePath);
    preset.sections.setBlocks(parsed);
    return parsed;
}

TrainingSettings trainingSettings(const Preset &preset)
{
    return trainingSection(preset)->settings;
}

Result<CompositeDefinition> compositeDefinition(const Preset &preset, const QString &name)
{
    const std::shared_ptr<const BlocksSection> blocks = blocksSection(preset);
    if (const auto found = blocks->definitions.constFind(name); found != blocks->definitions.constEnd())
        return found.value();
    if (const auto problem = blocks->problems.constFind(name); problem != blocks->problems.constEnd())
        return problem.value();
    return Error(QStringLiteral("the preset defines no composite block \"%1\"").arg(name));
}

SectionParses sectionParses()
{
    return SectionParses{g_trainingParses.load(), g_blocksParses.load()};
}

} // namespace ty
