#include "dataset_preview.h"

#include "document/pipeline_document.h"
#include "inspector_helpers.h"

#include "block_registry.h"
#include "param_values.h"
#include "dataset_loader.h"
#include "dataset_summary.h"

#include <QCoreApplication>
#include <QGridLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <cmath>
#include <thread>

namespace ty {

namespace {

constexpr int kPreviewSamples = 12;

// The request that reads a node's data set as a run would; an Error when the node is not a data set.
Result<DatasetRequest> requestFor(const PipelineDocument &document, const QString &nodeId)
{
    const Node *node = document.graph().node(nodeId);
    const BlockDescriptor *block = node ? BlockRegistry::builtin().find(node->block) : nullptr;
    if (!block || block->category != BlockCategory::Dataset)
        return Error(QStringLiteral("no data set node"));
    return DatasetRequest{node->block, node->id, block->effectiveParams(node->params), document.preset().baseDir()};
}

// Loads on a worker thread; `done` runs on the GUI thread unless `alive` went false meanwhile.
void loadInBackground(const DatasetRequest &request, std::shared_ptr<bool> alive,
                      std::function<void(const Result<LoadedDataset> &)> done)
{
    std::thread([request, alive, done] {
        auto result = std::make_shared<Result<LoadedDataset>>(loadDataset(request));
        QMetaObject::invokeMethod(QCoreApplication::instance(), [alive, done, result] {
            if (*alive)
                done(*result);
        }, Qt::QueuedConnection);
    }).detach();
}

QString count(int64_t n) { return QLocale().toString(qlonglong(n)); }

// A training sample that is not an image, short: a text window (dataset.text) as its characters, else its first
// values.
QString rowText(const LoadedDataset &data, int64_t i, bool textWindows)
{
    const SampleArray &x = data.train.x;
    const int64_t width = x.sampleSize();
    const auto value = [&](int64_t j) {
        return x.isFloat ? double(x.floats[size_t(i * width + j)]) : double(x.bytes[size_t(i * width + j)]) * double(x.scale);
    };
    if (textWindows)  // its ids are the classes' characters
        return sampleCharacters(x, i, data.classNames);
    QStringList parts;
    for (int64_t j = 0; j < std::min<int64_t>(width, 4); ++j)
        parts << QString::number(value(j), 'g', 3);
    return parts.join(QStringLiteral(", ")) + (width > 4 ? QStringLiteral(", …") : QString());
}

// Four significant digits: what a preset wants to hold.
double rounded(double value)
{
    if (value == 0.0)
        return 0.0;
    const double scale = std::pow(10.0, 3 - int(std::floor(std::log10(std::abs(value)))));
    return std::round(value * scale) / scale;
}

} // namespace

DatasetPreview::DatasetPreview(PipelineDocument *document, const QString &nodeId, QWidget *parent)
    : QWidget(parent), m_document(document), m_nodeId(nodeId)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_button = new QPushButton(tr("Preview data"), this);
    m_button->setToolTip(tr("Read the data set as a run would and show its classes and first samples"));
    layout->addWidget(m_button, 0, Qt::AlignLeft);
    m_summary = inspector::mutedLabel(QString(), this);
    m_summary->hide();
    layout->addWidget(m_summary);
    m_counts = new QTableWidget(this);
    m_counts->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_counts->verticalHeader()->hide();
    m_counts->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_counts->setMinimumHeight(120);
    m_counts->hide();
    layout->addWidget(m_counts);
    m_samples = new QWidget(this);
    m_samples->setLayout(new QGridLayout);
    m_samples->layout()->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_samples);
    connect(m_button, &QPushButton::clicked, this, &DatasetPreview::load);
}

DatasetPreview::~DatasetPreview()
{
    *m_alive = false;
}

void DatasetPreview::load()
{
    const Result<DatasetRequest> request = requestFor(*m_document, m_nodeId);
    if (!request || m_busy)
        return;
    m_busy = true;
    m_button->setEnabled(false);
    m_summary->setText(tr("Reading the data set…"));
    m_summary->show();
    loadInBackground(request.value(), m_alive, [this](const Result<LoadedDataset> &loaded) {
        m_busy = false;
        m_button->setEnabled(true);
        if (!loaded) {
            m_summary->setText(loaded.error().toString());
            Q_EMIT finished(false);
            return;
        }
        show(loaded.value());
        Q_EMIT finished(true);
    });
}

void DatasetPreview::show(const LoadedDataset &data)
{
    const DatasetShape &shape = data.shape;
    QStringList shapeParts;
    for (int64_t d : shape.sampleShape)
        shapeParts << QString::number(d);
    m_summary->setText(tr("%1 training, %2 validation, %3 test samples of [%4]%5")
                           .arg(count(data.train.size()), count(data.val.size()), count(data.test.size()),
                                shapeParts.join(QStringLiteral(", ")),
                                shape.classification ? tr(", %1 classes").arg(shape.numClasses) : QString()));

    m_counts->setVisible(shape.classification);
    if (shape.classification) {
        const std::vector<int64_t> train = classCounts(data.train.y, shape.numClasses), val = classCounts(data.val.y, shape.numClasses),
                                   test = classCounts(data.test.y, shape.numClasses);
        m_counts->clear();
        m_counts->setColumnCount(4);
        m_counts->setHorizontalHeaderLabels({tr("Class"), tr("Train"), tr("Val"), tr("Test")});
        m_counts->setRowCount(int(shape.numClasses));
        for (int c = 0; c < int(shape.numClasses); ++c) {
            m_counts->setItem(c, 0, new QTableWidgetItem(data.classNames.value(c, QString::number(c))));
            const int64_t values[] = {train[size_t(c)], val[size_t(c)], test[size_t(c)]};
            for (int column = 0; column < 3; ++column) {
                auto *item = new QTableWidgetItem(count(values[column]));
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_counts->setItem(c, column + 1, item);
            }
        }
    }

    // Training samples spread evenly over the split (a folder's come sorted by class): thumbnails (twice their size
    // up to 64 pixels) with their class, or rows.
    auto *grid = static_cast<QGridLayout *>(m_samples->layout());
    while (QLayoutItem *item = grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_sampleCount = int(std::min<int64_t>(kPreviewSamples, data.train.size()));
    const bool images = !sampleImage(data.train.x, 0).isNull();
    const Node *node = m_document->graph().node(m_nodeId);
    const BlockDescriptor *block = node ? m_document->block(node->block) : nullptr;
    const bool textWindows = block && block->yieldsTextWindows;
    for (int shown = 0; shown < m_sampleCount; ++shown) {
        const int64_t i = shown * data.train.size() / std::max(1, m_sampleCount);
        const QString label = data.train.y.classification ? data.classNames.value(int(data.train.y.classes[size_t(i)]))
                                                          : QString::number(data.train.y.values[size_t(i * data.train.y.width)], 'g', 4);
        auto *cell = new QLabel(m_samples);
        cell->setToolTip(label);
        if (images) {
            const QImage image = sampleImage(data.train.x, i);
            const int side = std::min(64, std::max(image.width(), image.height()) * 2);
            cell->setPixmap(QPixmap::fromImage(image.scaled(side, side, Qt::KeepAspectRatio, Qt::FastTransformation)));
            auto *caption = inspector::mutedLabel(label, m_samples);
            caption->setWordWrap(false);
            caption->setMaximumWidth(72);
            grid->addWidget(cell, (shown / 4) * 2, shown % 4, Qt::AlignHCenter);
            grid->addWidget(caption, (shown / 4) * 2 + 1, shown % 4, Qt::AlignHCenter);
        } else {
            cell->setText(tr("#%1: %2 → %3").arg(i + 1).arg(rowText(data, i, textWindows), label));
            cell->setTextFormat(Qt::PlainText);
            grid->addWidget(cell, shown, 0);
        }
    }
}

NormalizeFromData::NormalizeFromData(PipelineDocument *document, const QString &nodeId, QWidget *parent)
    : QWidget(parent), m_document(document), m_nodeId(nodeId)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_button = new QPushButton(tr("Compute from data"), this);
    m_button->setToolTip(tr("Set mean and std to the training split's, per channel"));
    layout->addWidget(m_button, 0, Qt::AlignLeft);
    m_status = inspector::mutedLabel(QString(), this);
    m_status->hide();
    layout->addWidget(m_status);
    connect(m_button, &QPushButton::clicked, this, &NormalizeFromData::compute);
}

NormalizeFromData::~NormalizeFromData()
{
    *m_alive = false;
}

void NormalizeFromData::compute()
{
    if (m_busy)
        return;
    // The data set that feeds this node: up its incoming edges (the pipeline's only one, normally).
    QString dataNode, at = m_nodeId;
    for (int hops = 0; !at.isEmpty() && hops <= m_document->graph().nodes.size() && dataNode.isEmpty(); ++hops) {
        const Node *node = m_document->graph().node(at);
        const BlockDescriptor *block = node ? BlockRegistry::builtin().find(node->block) : nullptr;
        if (block && block->category == BlockCategory::Dataset)
            dataNode = at;
        QString from;
        for (const Edge &edge : m_document->graph().edges)
            if (edge.to.node == at && from.isEmpty())
                from = edge.from.node;
        at = from;
    }
    const Result<DatasetRequest> request = requestFor(*m_document, dataNode);
    m_status->show();
    if (!request) {
        m_status->setText(tr("The pipeline has no data set to compute from."));
        Q_EMIT finished(false);
        return;
    }
    m_busy = true;
    m_button->setEnabled(false);
    m_status->setText(tr("Reading the data set…"));
    loadInBackground(request.value(), m_alive, [this](const Result<LoadedDataset> &loaded) {
        m_busy = false;
        m_button->setEnabled(true);
        if (!loaded) {
            m_status->setText(loaded.error().toString());
            Q_EMIT finished(false);
            return;
        }
        const ChannelStatistics stats = channelStatistics(loaded.value().train.x);
        QJsonArray mean, stddev;
        for (size_t c = 0; c < stats.mean.size(); ++c) {
            mean.append(rounded(stats.mean[c]));
            stddev.append(rounded(stats.stddev[c] > 0 ? stats.stddev[c] : 1.0));  // a constant channel: only centred
        }
        // One undo step that sets both, or nothing: the node may have gone meanwhile, or hold these values already.
        const Node *node = m_document->graph().node(m_nodeId);
        const BlockDescriptor *block = node ? BlockRegistry::builtin().find(node->block) : nullptr;
        QString problem = block ? QString() : tr("The node %1 is gone.").arg(m_nodeId);
        for (const auto &[name, value] : {std::pair{QStringLiteral("mean"), mean}, std::pair{QStringLiteral("std"), stddev}})
            if (problem.isEmpty() && block->param(name))
                problem = checkParamValue(*block->param(name), value);
        if (problem.isEmpty() && (node->params.value(QStringLiteral("mean")) != mean || node->params.value(QStringLiteral("std")) != stddev)) {
            m_document->undoStack()->beginMacro(tr("Compute normalisation from data"));
            m_document->setParam(m_nodeId, QStringLiteral("mean"), mean);
            m_document->setParam(m_nodeId, QStringLiteral("std"), stddev);
            m_document->undoStack()->endMacro();
        }
        m_status->setText(problem.isEmpty() ? tr("From %1 training samples.").arg(count(loaded.value().train.size())) : problem);
        Q_EMIT finished(problem.isEmpty());
    });
}

} // namespace ty
