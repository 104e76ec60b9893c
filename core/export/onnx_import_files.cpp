#include "onnx_import_files.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

namespace ty {

namespace {

// NAME.trainyard.json -> NAME
QString presetStem(const QString &path)
{
    QString base = QFileInfo(path).fileName();
    for (const char *suffix : {".trainyard.json", ".json", ".onnx"})
        if (base.endsWith(QLatin1String(suffix))) {
            base.chop(int(qstrlen(suffix)));
            break;
        }
    return base;
}

} // namespace

QString onnxImportWeightsPath(const QString &presetPath)
{
    return QFileInfo(presetPath).dir().filePath(presetStem(presetPath) + QStringLiteral(".weights.safetensors"));
}

QString onnxImportSuggestedPreset(const QString &modelPath)
{
    return QFileInfo(modelPath).dir().filePath(presetStem(modelPath) + QStringLiteral(".trainyard.json"));
}

Result<OnnxImportFiles> importOnnxToFiles(const QString &modelPath, const QString &presetPath)
{
    QElapsedTimer timer;
    timer.start();
    OnnxImportFiles files;
    files.presetPath = presetPath;
    files.weightsPath = onnxImportWeightsPath(presetPath);
    const Result<OnnxModelView> view = readOnnxModelFile(modelPath);
    if (!view)
        return view.error();
    const QString name = QFileInfo(presetPath).fileName().section(QLatin1Char('.'), 0, 0);
    Result<OnnxImport> imported = importOnnx(view.value(), modelPath, name, QFileInfo(files.weightsPath).fileName());
    if (!imported)
        return imported.error();
    files.import = std::move(imported).value();
    const Status weightsWritten = writeFileAtomically(files.weightsPath, encodeSafetensors(files.import.weights));
    const Status presetWritten = weightsWritten
                                     ? writeFileAtomically(presetPath, QJsonDocument(files.import.preset).toJson(QJsonDocument::Indented))
                                     : weightsWritten;
    if (!presetWritten) {
        if (weightsWritten)
            QFile::remove(files.weightsPath);
        Error e = presetWritten.error();
        if (e.file.isEmpty())
            e.file = weightsWritten ? presetPath : files.weightsPath;
        return e;
    }
    files.seconds = double(timer.elapsed()) / 1000.0;
    return files;
}

} // namespace ty
