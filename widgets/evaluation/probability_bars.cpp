#include "probability_bars.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>

#include <algorithm>

namespace ty {

namespace {

constexpr int kMargin = 6;       // around everything
constexpr int kGap = 12;         // between columns, and under each input
constexpr int kMinimumBar = 60;  // the bar keeps at least this much room beside the class names

} // namespace

QList<ClassifiedInput> classifiedInputsFromJsonLines(const QByteArray &output)
{
    QList<ClassifiedInput> inputs;
    for (const QByteArray &line : output.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.isEmpty())
            continue;
        ClassifiedInput input;
        input.title = o.value(QStringLiteral("input")).toString();
        for (const QJsonValue &v : o.value(QStringLiteral("top")).toArray())
            input.bars.append({v.toObject().value(QStringLiteral("class")).toString(), v.toObject().value(QStringLiteral("probability")).toDouble()});
        if (o.contains(QStringLiteral("values"))) {
            QStringList values;
            for (const QJsonValue &v : o.value(QStringLiteral("values")).toArray())
                values << QString::number(v.toDouble(), 'g', 5);
            input.title = QObject::tr("%1: predicted %2").arg(input.title, values.join(QStringLiteral(", ")));
        }
        inputs.append(input);
    }
    return inputs;
}

ProbabilityBars::ProbabilityBars(QWidget *parent) : QWidget(parent)
{
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void ProbabilityBars::setInputs(const QList<ClassifiedInput> &inputs, const QString &note)
{
    m_inputs = inputs;
    m_note = note;
    m_message.clear();
    updateGeometry();
    update();
}

void ProbabilityBars::setMessage(const QString &message)
{
    m_message = message;
    m_inputs.clear();
    m_note.clear();
    updateGeometry();
    update();
}

int ProbabilityBars::lineHeight() const { return fontMetrics().height() + 6; }

int ProbabilityBars::inputHeight(const ClassifiedInput &input) const
{
    const int lines = lineHeight() * int(1 + input.bars.size());
    return std::max(lines, input.thumbnail.isNull() ? 0 : kThumbnailSide + 4) + kGap;
}

int ProbabilityBars::columnsFor(int width) const
{
    const int fit = std::max(1, (width - 2 * kMargin + kGap) / (kMinimumColumnWidth + kGap));
    return std::clamp(int(m_inputs.size()), 1, fit);
}

int ProbabilityBars::columnCount() const { return columnsFor(width()); }

int ProbabilityBars::rowHeight(int firstInput, int columns) const
{
    int height = 0;
    for (int i = firstInput; i < std::min<int>(firstInput + columns, int(m_inputs.size())); ++i)
        height = std::max(height, inputHeight(m_inputs[i]));
    return height;
}

int ProbabilityBars::heightForWidth(int width) const
{
    const int text = width - 2 * kMargin;
    if (!m_message.isEmpty() || m_inputs.isEmpty())
        return std::max(2 * lineHeight(), fontMetrics().boundingRect(QRect(0, 0, std::max(40, text), 10000), Qt::TextWordWrap, m_message).height()
                                              + 2 * kMargin);
    const int columns = columnsFor(width);
    int height = 2 * kMargin;
    for (int first = 0; first < m_inputs.size(); first += columns)
        height += rowHeight(first, columns);
    if (!m_note.isEmpty())
        height += fontMetrics().boundingRect(QRect(0, 0, std::max(40, text), 10000), Qt::TextWordWrap, m_note).height();
    return height;
}

QSize ProbabilityBars::sizeHint() const
{
    const int width = std::max(this->width(), kMinimumColumnWidth);
    return QSize(kMinimumColumnWidth, heightForWidth(width));
}

QSize ProbabilityBars::minimumSizeHint() const { return QSize(160, 2 * lineHeight()); }

QRect ProbabilityBars::inputRect(int input) const
{
    if (input < 0 || input >= m_inputs.size())
        return QRect();
    const int columns = columnCount();
    const int columnWidth = (width() - 2 * kMargin - (columns - 1) * kGap) / columns;
    int top = kMargin;
    const int row = input / columns;
    for (int r = 0; r < row; ++r)
        top += rowHeight(r * columns, columns);
    const int left = kMargin + (input % columns) * (columnWidth + kGap);
    return QRect(left, top, columnWidth, inputHeight(m_inputs[input]) - kGap);
}

QRect ProbabilityBars::barsArea(int input) const
{
    const QRect r = inputRect(input);
    const int thumbnail = m_inputs[input].thumbnail.isNull() ? 0 : kThumbnailSide + 8;
    return QRect(r.left() + thumbnail, r.top() + lineHeight(), r.width() - thumbnail, r.height() - lineHeight());
}

int ProbabilityBars::labelWidth(int input, int areaWidth) const
{
    int widest = 0;
    for (const auto &bar : m_inputs[input].bars)
        widest = std::max(widest, fontMetrics().horizontalAdvance(bar.first));
    const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("100.0%")) + 8;
    // The names' room, 8 pixels before the bars, and 2 of slack (elidedText cuts a name exactly as wide as its room).
    return std::max(0, std::min(widest + 10, areaWidth - valueWidth - kMinimumBar));
}

QRect ProbabilityBars::barRect(int input, int row) const
{
    if (input < 0 || input >= m_inputs.size() || row < 0 || row >= m_inputs[input].bars.size())
        return QRect();
    const QRect area = barsArea(input);
    const int labels = labelWidth(input, area.width());
    const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("100.0%")) + 8;
    const int space = std::max(10, area.width() - labels - valueWidth);
    const double p = std::clamp(m_inputs[input].bars[row].second, 0.0, 1.0);
    const int y = area.top() + row * lineHeight();
    return QRect(area.left() + labels, y + 3, std::max(1, int(space * p)), lineHeight() - 6);
}

QString ProbabilityBars::shownLabel(int input, int row) const
{
    if (input < 0 || input >= m_inputs.size() || row < 0 || row >= m_inputs[input].bars.size())
        return QString();
    const int labels = labelWidth(input, barsArea(input).width());
    return fontMetrics().elidedText(m_inputs[input].bars[row].first, Qt::ElideRight, std::max(0, labels - 8));
}

void ProbabilityBars::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const int line = lineHeight();
    if (!m_message.isEmpty() || m_inputs.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(kMargin, 0, -kMargin, 0), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    QFont bold = font();
    bold.setBold(true);
    const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("100.0%")) + 8;
    int bottom = kMargin;
    for (int i = 0; i < m_inputs.size(); ++i) {
        const ClassifiedInput &input = m_inputs[i];
        const QRect box = inputRect(i);
        bottom = std::max(bottom, box.bottom() + kGap);
        if (!input.thumbnail.isNull()) {
            const QImage image = input.thumbnail.scaled(kThumbnailSide, kThumbnailSide, Qt::KeepAspectRatio, Qt::SmoothTransformation);
            painter.drawImage(QPoint(box.left() + (kThumbnailSide - image.width()) / 2, box.top() + 2), image);
        }
        const QRect area = barsArea(i);
        painter.setPen(palette().color(QPalette::Text));
        painter.setFont(bold);
        painter.drawText(QRect(area.left(), box.top(), area.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetrics(bold).elidedText(input.title, Qt::ElideMiddle, area.width()));
        painter.setFont(font());
        const int labels = labelWidth(i, area.width());
        for (int row = 0; row < input.bars.size(); ++row) {
            const int y = area.top() + row * line;
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(QRect(area.left(), y, std::max(0, labels - 8), line), Qt::AlignRight | Qt::AlignVCenter, shownLabel(i, row));
            const QRect bar = barRect(i, row);
            painter.fillRect(bar, row == 0 ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid));
            painter.drawText(QRect(area.right() - valueWidth + 1, y, valueWidth, line), Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("%1%").arg(std::clamp(input.bars[row].second, 0.0, 1.0) * 100, 0, 'f', 1));
        }
    }
    if (!m_note.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(QRect(kMargin, bottom, width() - 2 * kMargin, height() - bottom), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_note);
    }
}

} // namespace ty
