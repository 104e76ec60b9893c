// `trainyard-cli predict` on a million inputs as whole processes: a 762 KB gzipped IDX file of 1,000,000 images
// (784 MB decoded) and a CSV file of 1,000,000 rows, with a model trained for it first. Inputs are read and
// predictions written a batch at a time, so the process's peak stays near LibTorch's own whatever the inputs
// hold (before, 6.7 GB and 1.3 GB).

#include "bench_process.h"
#include "bench_sections.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>

#include <zlib.h>

#include <cstdio>

namespace ty::bench {

namespace {

const QString kSection = QStringLiteral("process");
constexpr int kSamples = 1000000;

// A gzipped IDX file of kSamples blank 28x28 images, written a piece at a time.
bool writeMillionImages(const QString &path)
{
    gzFile out = gzopen(QFile::encodeName(path).constData(), "wb6");
    if (!out)
        return false;
    char header[16];
    qToBigEndian<quint32>(0x00000803, header);
    qToBigEndian<quint32>(kSamples, header + 4);
    qToBigEndian<quint32>(28, header + 8);
    qToBigEndian<quint32>(28, header + 12);
    bool ok = gzwrite(out, header, 16) == 16;
    const QByteArray piece(784 * 10000, '\0');
    for (int i = 0; ok && i < kSamples / 10000; ++i)
        ok = gzwrite(out, piece.constData(), unsigned(piece.size())) == piece.size();
    return gzclose(out) == Z_OK && ok;
}

// kSamples rows of the bundled wine table, repeated.
bool writeMillionRows(const QString &path)
{
    QFile wine(QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/wine.csv"));
    QFile out(path);
    if (!wine.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
        return false;
    QList<QByteArray> lines = wine.readAll().split('\n');
    lines.removeAll(QByteArray());
    out.write(lines.takeFirst() + '\n');
    for (int i = 0; i < kSamples; ++i)
        out.write(lines.at(i % lines.size()) + '\n');
    return out.error() == QFile::NoError;
}

void benchPredict(const QString &what, const QString &preset, const QStringList &trainSets, const QString &input, const QString &folder,
                  Report &report)
{
    const QString db = QDir(folder).filePath(what + QStringLiteral(".sqlite"));
    QStringList train{QStringLiteral("run"), QStringLiteral(TRAINYARD_SOURCE_DIR "/presets/") + preset, QStringLiteral("--db"), db,
                      QStringLiteral("--quiet")};
    for (const QString &set : trainSets)
        train << QStringLiteral("--set") << set;
    if (const ProcessRun trained = runCli(train); !trained.ok)
        qFatal("training for the predict benchmark failed: %s", qPrintable(trained.output.right(400)));
    const ProcessRun predicted = runCli({QStringLiteral("predict"), QStringLiteral("1"), input, QStringLiteral("--db"), db});
    if (!predicted.ok)
        qFatal("predict failed: %s", qPrintable(predicted.output.right(400)));
    const qsizetype lines = predicted.output.count(QLatin1Char('\n'));
    report.add(kSection, QStringLiteral("predict, %1 (%2 lines): whole process").arg(what).arg(lines), predicted.seconds, QStringLiteral("s"));
    // LibTorch alone takes about 165 MB; the decoded images would take 784 MB more.
    report.add(kSection, QStringLiteral("predict, %1: peak memory").arg(what), predicted.peakMb, QStringLiteral("MB"),
               QStringLiteral("< 512"), predicted.peakMb < 512);
}

} // namespace

void benchPredictMemory(const Options &options, Report &report)
{
    std::fprintf(stderr, "predict on a million inputs\n");
    if (options.quick || !QDir(QStringLiteral("/usr/share/datasets/fashion-mnist")).exists()) {
        std::fprintf(stderr, "  skipped: %s\n", options.quick ? "--quick" : "needs Fashion-MNIST (dataset-fashion-mnist)");
        return;
    }
    QTemporaryDir folder;
    const QString images = folder.filePath(QStringLiteral("million.idx.gz"));
    const QString rows = folder.filePath(QStringLiteral("million.csv"));
    if (!writeMillionImages(images) || !writeMillionRows(rows))
        qFatal("cannot write the predict benchmark's inputs in %s", qPrintable(folder.path()));
    benchPredict(QStringLiteral("1,000,000 images in a 762 KB gzipped IDX file"), QStringLiteral("fashion-mnist-mlp.trainyard.json"),
                 {QStringLiteral("data.limit=3000"), QStringLiteral("data.val_count=300"), QStringLiteral("training.epochs=1")}, images,
                 folder.path(), report);
    benchPredict(QStringLiteral("1,000,000 CSV rows (72 MB)"), QStringLiteral("wine-tabular.trainyard.json"), {QStringLiteral("training.epochs=2")},
                 rows, folder.path(), report);
}

} // namespace ty::bench
