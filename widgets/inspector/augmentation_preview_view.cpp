#include "augmentation_preview_view.h"

#include "augmentation_worker.h"
#include "document/pipeline_document.h"
#include "inspector_helpers.h"

#include "preset_format.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QRandomGenerator>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ty {

namespace {

constexpr int kColumns = 4;
constexpr int kThumbnail = 64;  // pixels on screen, whatever the sample's size

// [C, H, W] values as an image, mapped from [low, high] to 0..255: grey for 1 channel, colour for 3.
QImage toImage(const QJsonArray &values, int channels, int height, int width, double low, double high)
{
    QImage image(width, height, QImage::Format_RGB32);
    const double span = high > low ? high - low : 1.0;
    const auto level = [&](int c, int y, int x) {
        const double v = values.at(qsizetype((c * height + y) * width + x)).toDouble();
        return std::clamp(int(std::lround((v - low) / span * 255)), 0, 255);
    };
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const int r = level(0, y, x);
            image.setPixel(x, y, channels == 3 ? qRgb(r, level(1, y, x), level(2, y, x)) : qRgb(r, r, r));
        }
    return image;
}

} // namespace

AugmentationPreviewView::AugmentationPreviewView(PipelineDocument *document, const QString &nodeId, AugmentationWorker *worker,
                                                 QWidget *parent)
    : QWidget(parent), m_document(document), m_nodeId(nodeId), m_worker(worker)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *buttons = new QHBoxLayout;
    m_previewButton = new QPushButton(tr("Preview augmentation"), this);
    m_previewButton->setToolTip(tr("16 variants of a training sample through the transforms up to this node, drawn by the "
                                   "training code with the seed shown"));
    m_rerollButton = new QPushButton(tr("Reroll"), this);
    m_rerollButton->setToolTip(tr("Draw again with a new seed"));
    m_rerollButton->setEnabled(false);
    buttons->addWidget(m_previewButton);
    buttons->addWidget(m_rerollButton);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_status = inspector::mutedLabel(QString(), this);
    m_status->setWordWrap(true);
    m_status->hide();
    layout->addWidget(m_status);
    auto *gridBox = new QWidget(this);
    m_grid = new QGridLayout(gridBox);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(3);
    layout->addWidget(gridBox, 0, Qt::AlignLeft);
    connect(m_previewButton, &QPushButton::clicked, this, &AugmentationPreviewView::preview);
    connect(m_rerollButton, &QPushButton::clicked, this, &AugmentationPreviewView::reroll);
    if (m_worker)
        connect(m_worker, &AugmentationWorker::replied, this, &AugmentationPreviewView::replied);
}

bool AugmentationPreviewView::busy() const { return m_request.has_value(); }

void AugmentationPreviewView::reroll()
{
    m_seed = QRandomGenerator::global()->bounded(1000000u);
    preview();
}

// The canvas's preset (saved or not) with its data paths made absolute, sent to the worker in the request.
QJsonObject AugmentationPreviewView::previewRequest() const
{
    Preset preset = m_document->preset();
    makePathsAbsolute(&preset);
    return QJsonObject{{QStringLiteral("preset"), presetToJson(preset)}, {QStringLiteral("node"), m_nodeId},
                       {QStringLiteral("seed"), QString::number(m_seed)}};
}

void AugmentationPreviewView::warmUp()
{
    if (m_worker)
        m_worker->warmUp(previewRequest());
}

void AugmentationPreviewView::preview()
{
    if (!m_worker) {
        fail(tr("No training worker to draw the preview"));
        return;
    }
    m_request = m_worker->request(previewRequest());
    m_status->setText(tr("Drawing 16 variants with seed %1…").arg(m_seed));
    m_status->show();
}

void AugmentationPreviewView::replied(quint64 id, const QJsonObject &reply)
{
    if (!m_request || id != *m_request)
        return;  // another view's, or a replaced preview's
    m_request.reset();
    if (reply.value(QStringLiteral("superseded")).toBool()) {  // another view's newer preview went first
        m_status->hide();
        return;
    }
    if (reply.contains(QStringLiteral("error")))
        fail(reply.value(QStringLiteral("error")).toString());
    else
        show(reply);
}

void AugmentationPreviewView::clearGrid()
{
    m_images.clear();
    while (QLayoutItem *item = m_grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

void AugmentationPreviewView::fail(const QString &message)
{
    clearGrid();
    m_status->setText(message);
    m_status->show();
    m_rerollButton->setEnabled(true);
    Q_EMIT finished(false);
}

void AugmentationPreviewView::show(const QJsonObject &o)
{
    const QJsonArray shape = o.value(QStringLiteral("variant_shape")).toArray();
    const QJsonArray sampleShape = o.value(QStringLiteral("sample_shape")).toArray();
    const QJsonArray variants = o.value(QStringLiteral("variants")).toArray();
    const int channels = shape.size() == 3 ? shape.at(0).toInt() : 0;
    if (variants.isEmpty() || shape.size() != 3 || (channels != 1 && channels != 3) || shape != sampleShape) {
        fail(variants.isEmpty() ? tr("The worker sent no variants") : tr("These samples are not images: the preview draws only images"));
        return;
    }
    const int height = shape.at(1).toInt(), width = shape.at(2).toInt();
    QList<QJsonArray> all{o.value(QStringLiteral("original")).toArray()};
    for (const QJsonValue &v : variants)
        all.append(v.toArray());
    double low = 0, high = 1;  // one scale for all, so that brightness changes show
    bool first = true;
    for (const QJsonArray &values : all)
        for (const QJsonValue &v : values) {
            low = first ? v.toDouble() : std::min(low, v.toDouble());
            high = first ? v.toDouble() : std::max(high, v.toDouble());
            first = false;
        }
    clearGrid();
    for (const QJsonArray &values : all)
        m_images.append(toImage(values, channels, height, width, low, high));
    for (int i = 0; i < m_images.size(); ++i) {
        auto *label = new QLabel;
        label->setPixmap(QPixmap::fromImage(m_images.at(i).scaled(kThumbnail, kThumbnail, Qt::KeepAspectRatio, Qt::FastTransformation)));
        label->setToolTip(i == 0 ? tr("The training sample as the pipeline receives it") : tr("Variant %1").arg(i));
        if (i == 0) {
            label->setStyleSheet(QStringLiteral("border: 2px solid palette(highlight);"));
            m_grid->addWidget(label, 0, 0);
            m_grid->addWidget(inspector::mutedLabel(tr("← training sample %1").arg(o.value(QStringLiteral("sample")).toInteger()),
                                                      m_grid->parentWidget()),
                              0, 1, 1, kColumns - 1);
        } else {
            m_grid->addWidget(label, 1 + (i - 1) / kColumns, (i - 1) % kColumns);
        }
    }
    QStringList through;
    for (const QJsonValue &t : o.value(QStringLiteral("transforms")).toArray())
        through << t.toString();
    m_status->setText(tr("Seed %1, through %2").arg(m_seed).arg(through.join(QStringLiteral(" → "))));
    m_status->show();
    m_rerollButton->setEnabled(true);
    Q_EMIT finished(true);
}

} // namespace ty
