// StagesEditor: the edits, each one undo command on the document.

#include "stages_editor.h"

#include "document/pipeline_document.h"
#include "document/training_stage_edits.h"

#include "training_stages.h"

#include <QLabel>
#include <QPlainTextEdit>

namespace ty {

int StagesEditor::session(const QString &field)
{
    const QString key = QStringLiteral("%1/%2").arg(currentStage()).arg(field);
    if (m_sessionField != key || m_session == 0) {
        m_sessionField = key;
        m_session = nextEditSession();
    }
    return m_session;
}

void StagesEditor::endSession(const QString &field)
{
    if (m_sessionField.endsWith(QLatin1Char('/') + field))
        m_session = 0;
}

void StagesEditor::commit(const QJsonObject &training, const QString &text, const QString &field, int session)
{
    m_document->setTrainingSection(training, text,
                                   field.isEmpty() ? QString() : QStringLiteral("stages[%1].%2").arg(currentStage()).arg(field),
                                   session);
}

void StagesEditor::addStage()
{
    const QJsonObject training = stage_edits::addStage(m_document->preset().training);
    const int added = int(stage_edits::stagesOf(training).size()) - 1;
    commit(training, tr("Add training stage %1").arg(added + 1));
    m_document->setShownStage(added);
}

void StagesEditor::removeStage()
{
    const int index = currentStage();
    if (index < 0)
        return;
    commit(stage_edits::removeStage(m_document->preset().training, index), tr("Remove training stage %1").arg(index + 1));
    m_document->setShownStage(std::min(index, int(stage_edits::stagesOf(m_document->preset().training).size()) - 1));
}

void StagesEditor::moveStage(int delta)
{
    const int index = currentStage();
    const int to = index + delta;
    if (index < 0 || to < 0 || to >= stage_edits::stagesOf(m_document->preset().training).size())
        return;
    commit(stage_edits::moveStage(m_document->preset().training, index, to),
           delta < 0 ? tr("Move training stage %1 up").arg(index + 1) : tr("Move training stage %1 down").arg(index + 1));
    m_document->setShownStage(to);
}

void StagesEditor::setName(const QString &name)
{
    const int index = currentStage();
    if (index < 0)
        return;
    const QJsonValue value = name.trimmed().isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(name.trimmed());
    commit(stage_edits::setStageValue(m_document->preset().training, index, QStringLiteral("name"), value),
           tr("Rename training stage %1").arg(index + 1), QStringLiteral("name"), session(QStringLiteral("name")));
}

void StagesEditor::setEpochs(int epochs)
{
    const int index = currentStage();
    if (index < 0)
        return;
    commit(stage_edits::setStageValue(m_document->preset().training, index, QStringLiteral("epochs"), epochs),
           tr("Set the epochs of training stage %1").arg(index + 1), QStringLiteral("epochs"), session(QStringLiteral("epochs")));
}

void StagesEditor::setResetOptimizer(int choice)
{
    const int index = currentStage();
    if (index < 0)
        return;
    const QJsonValue value = choice == 1 ? QJsonValue(true) : choice == 2 ? QJsonValue(false) : QJsonValue(QJsonValue::Undefined);
    commit(stage_edits::setStageValue(m_document->preset().training, index, QStringLiteral("reset_optimizer"), value),
           tr("Set the optimizer reset of training stage %1").arg(index + 1));
}

bool StagesEditor::setOverridesText(const QString &text)
{
    const int index = currentStage();
    if (index < 0)
        return false;
    QString problem;
    const std::optional<QJsonObject> set = stage_edits::overridesFromText(text, m_document->graph(), &problem);
    if (!set) {
        m_overridesProblem->setText(problem);
        m_overridesProblem->show();
        return false;
    }
    m_overridesProblem->hide();
    const QJsonValue value = set->isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(*set);
    commit(stage_edits::setStageValue(m_document->preset().training, index, QStringLiteral("set"), value),
           tr("Set the overrides of training stage %1").arg(index + 1));
    return true;
}

void StagesEditor::setFrozenNodes(const QStringList &nodes)
{
    const int index = currentStage();
    if (index < 0)
        return;
    const QList<StagePlan> plans = planStages(m_document->preset());
    const QStringList before = index > 0 && index - 1 < plans.size() ? plans.at(index - 1).frozen : QStringList();
    commit(stage_edits::setStageFrozen(m_document->preset().training, index, m_document->graph(), before, nodes),
           tr("Set the frozen nodes of training stage %1").arg(index + 1));
}

} // namespace ty
