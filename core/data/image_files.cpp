#include "image_files.h"

#include "sha256.h"

#include <QDateTime>
#include <QFileInfo>
#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryFile>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <system_error>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>

namespace ty {

namespace {

const QByteArray kCacheMagic = QByteArrayLiteral("trainyard-decoded-images 1\n");

int workerCount(int threads, qsizetype files)
{
    int n = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
    return int(std::max<qsizetype>(1, std::min<qsizetype>(n, files)));
}

// The cache key: the format and every file's path, size and modification time.
QString cacheKey(const QStringList &paths, const ImageFormat &format)
{
    Sha256 hash;
    hash.addData(QStringLiteral("%1 %2 %3 %4\n").arg(format.channels).arg(format.height).arg(format.width)
                     .arg(format.fit == ImageFit::Crop ? QStringLiteral("crop") : QStringLiteral("stretch")).toUtf8());
    const QDir current;
    for (const QString &path : paths) {
        // stat(2) directly: QFileInfo's modification time is a local-time QDateTime, slow to build 70,000 times.
        const QByteArray name = QFile::encodeName(current.absoluteFilePath(path));
        struct stat info {};
        if (::stat(name.constData(), &info) != 0)
            return QString();  // the decode reports the missing file
        hash.addData(name);
        const qint64 fields[] = {qint64(info.st_size), qint64(info.st_mtim.tv_sec), qint64(info.st_mtim.tv_nsec),
                                 qint64(info.st_ctim.tv_sec), qint64(info.st_ctim.tv_nsec), qint64(info.st_ino), qint64(info.st_dev)};
        hash.addData(QByteArrayView(reinterpret_cast<const char *>(fields), sizeof fields));
    }
    return QString::fromLatin1(hash.result().toHex());
}

QString cachePath(const QString &key) { return imageCacheDir() + QLatin1Char('/') + key + QStringLiteral(".images"); }

// Checks a cache file's header; on success the file is positioned at its first byte of data.
bool readCacheHeader(QFile &file, int64_t expectedBytes, QString *fingerprintOut)
{
    if (!file.open(QIODevice::ReadOnly))
        return false;
    if (file.read(kCacheMagic.size()) != kCacheMagic)
        return false;
    const QByteArray fingerprint = file.readLine(80).trimmed();
    const QByteArray count = file.readLine(40).trimmed();
    bool ok = false;
    if (fingerprint.size() != 64 || count.toLongLong(&ok) != expectedBytes || !ok)
        return false;
    if (file.size() - file.pos() != expectedBytes)
        return false;
    *fingerprintOut = QString::fromLatin1(fingerprint);
    return true;
}

bool readCache(const QString &key, int64_t expectedBytes, DecodedImages *out)
{
    QFile file(cachePath(key));
    QString fingerprint;
    if (!readCacheHeader(file, expectedBytes, &fingerprint))
        return false;
    out->bytes.resize(size_t(expectedBytes));
    if (file.read(reinterpret_cast<char *>(out->bytes.data()), expectedBytes) != expectedBytes)
        return false;
    out->fingerprint = fingerprint;
    out->fromCache = true;
    return true;
}

void writeCache(const QString &key, const DecodedImages &images)
{
    if (!QDir().mkpath(imageCacheDir()))
        return;
    QSaveFile file(cachePath(key));
    if (!file.open(QIODevice::WriteOnly))
        return;
    file.write(kCacheMagic);
    file.write(images.fingerprint.toLatin1() + '\n');
    file.write(QByteArray::number(qint64(images.bytes.size())) + '\n');
    file.write(reinterpret_cast<const char *>(images.bytes.data()), qint64(images.bytes.size()));
    file.commit();  // best effort: a failed write leaves no file behind
}

// Decodes on worker threads. Files are claimed in order, and after a failure no new one is claimed: every file
// before the failed one was claimed already and finishes, so the Error kept (the lowest index) is the list's
// first bad file whatever the timing.
Result<DecodedImages> decode(const QStringList &paths, const ImageFormat &format, int threads,
                             std::vector<QByteArray> *digestsOut = nullptr)
{
    const int64_t sampleSize = format.sampleSize();
    DecodedImages out;
    out.bytes.resize(size_t(sampleSize * paths.size()));
    std::vector<QByteArray> digests(size_t(paths.size()));
    std::atomic<qsizetype> next{0};
    std::atomic<bool> failed{false};
    std::mutex errorMutex;
    qsizetype errorIndex = paths.size();
    Error error;
    auto work = [&] {
        for (;;) {
            if (failed.load())
                return;
            const qsizetype i = next.fetch_add(1);
            if (i >= paths.size())
                return;
            QByteArray bytes;
            Status read = Status::success();
            try {
                read = readImageFile(paths[i], format, out.bytes.data() + sampleSize * i, &bytes);
            } catch (const std::exception &exception) {  // out of memory in a decoder: this file's error
                read = Error::inFile(paths[i], QStringLiteral("cannot decode: %1").arg(QString::fromLocal8Bit(exception.what())));
            }
            if (!read) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (i < errorIndex) {
                    errorIndex = i;
                    error = read.error();
                }
                failed.store(true);
                return;
            }
            digests[size_t(i)] = Sha256::hash(bytes);
        }
    };
    std::vector<std::thread> workers;
    const int n = workerCount(threads, paths.size());
    try {
        for (int t = 1; t < n; ++t)
            workers.emplace_back(work);
    } catch (const std::system_error &) {
        // no more threads to be had: those started and this one do the work
    }
    work();
    for (std::thread &worker : workers)
        worker.join();
    if (failed.load())
        return error;
    Sha256 hash;
    for (const QByteArray &digest : digests)
        hash.addData(digest);
    out.fingerprint = QString::fromLatin1(hash.result().toHex());
    if (digestsOut)
        digestsOut->insert(digestsOut->end(), digests.begin(), digests.end());
    return out;
}

// Decodes `paths` in chunks of at most about 8 MB into `file`, in the cache's format; returns the fingerprint.
// The fingerprint line is written last, over a placeholder, once every file's digest is known.
Result<QString> decodeInChunks(const QStringList &paths, const ImageFormat &format, int threads, QFile &file)
{
    const int64_t sampleSize = format.sampleSize();
    const QString where = file.fileName();
    const auto failedWrite = [&] { return Error::inFile(where, QStringLiteral("cannot write the decoded images: %1").arg(file.errorString())); };
    if (file.write(kCacheMagic) < 0 || file.write(QByteArray(64, '0') + '\n') < 0
        || file.write(QByteArray::number(qint64(sampleSize * paths.size())) + '\n') < 0)
        return failedWrite();
    // At least 64 files a chunk, so that large images still keep every decoding thread busy.
    const qsizetype chunk = qsizetype(std::max<int64_t>(64, (int64_t(8) << 20) / std::max<int64_t>(1, sampleSize)));
    std::vector<QByteArray> digests;
    digests.reserve(size_t(paths.size()));
    for (qsizetype begin = 0; begin < paths.size(); begin += chunk) {
        Result<DecodedImages> part = decode(paths.mid(begin, chunk), format, threads, &digests);
        if (!part)
            return part.error();
        const std::vector<uint8_t> &bytes = part.value().bytes;
        if (file.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size())) != qint64(bytes.size()))
            return failedWrite();
    }
    Sha256 hash;
    for (const QByteArray &digest : digests)
        hash.addData(digest);
    const QByteArray fingerprint = hash.result().toHex();
    if (!file.seek(kCacheMagic.size()) || file.write(fingerprint) != 64 || !file.flush())
        return failedWrite();
    return QString::fromLatin1(fingerprint);
}

} // namespace

QString imageCacheDir()
{
    QString base = qEnvironmentVariable("TRAINYARD_CACHE_DIR");
    if (base.isEmpty()) {
        const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
        base = (xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg) + QStringLiteral("/trainyard");
    }
    return base + QStringLiteral("/images");
}

Result<DecodedImages> decodeImageFiles(const QStringList &paths, const ImageFormat &format, int threads, bool useCache)
{
    const int64_t expected = format.sampleSize() * paths.size();
    QString key;
    if (useCache) {
        key = cacheKey(paths, format);
        if (key.isEmpty())
            useCache = false;
    }
    if (useCache) {
        DecodedImages cached;
        if (readCache(key, expected, &cached))
            return cached;
    }
    Result<DecodedImages> decoded = decode(paths, format, threads);
    // A file changed while it was decoded gets another key now: what was decoded is not kept under the old one.
    if (decoded && useCache && cacheKey(paths, format) == key)
        writeCache(key, decoded.value());
    return decoded;
}

// Removes what a decode that never finished left in `folder` (a file untouched for an hour is no longer written).
void removeStaleDecodes(const QString &folder)
{
    const QDateTime hourAgo = QDateTime::currentDateTimeUtc().addSecs(-3600);
    for (const QFileInfo &file : QDir(folder).entryInfoList({QStringLiteral("trainyard-decoding-*")}, QDir::Files))
        if (file.lastModified().toUTC() < hourAgo)
            QFile::remove(file.filePath());
}

Result<StoredImages> decodeImageFilesToStore(const QStringList &paths, const ImageFormat &format, int threads, bool useCache)
{
    const int64_t sampleSize = format.sampleSize(), expected = sampleSize * paths.size();
    const QString key = useCache ? cacheKey(paths, format) : QString();
    StoredImages out;
    if (!key.isEmpty()) {
        QFile cached(cachePath(key));
        if (readCacheHeader(cached, expected, &out.fingerprint)) {
            Result<std::shared_ptr<SampleStore>> store = SampleStore::open(cached.fileName(), cached.pos(), sampleSize, paths.size());
            if (store) {
                out.store = store.value();
                out.fromCache = true;
                return out;
            }
        }
    }
    // A temporary file in the cache folder (on disk, where the cache is, whether or not this decode is kept),
    // renamed into the cache when the decode is done and no file changed meanwhile, else unlinked once open; in
    // the system's temporary folder only when the cache folder cannot be made.
    const bool cacheFolder = QDir().mkpath(imageCacheDir());
    const QString folder = cacheFolder ? imageCacheDir() : QDir::tempPath();
    removeStaleDecodes(folder);
    QTemporaryFile file(folder + QStringLiteral("/trainyard-decoding-XXXXXX"));
    file.setAutoRemove(false);
    if (!file.open())
        return Error::inFile(file.fileTemplate(), QStringLiteral("cannot create a file for the decoded images: %1").arg(file.errorString()));
    const qint64 dataOffset = kCacheMagic.size() + 65 + QByteArray::number(qint64(expected)).size() + 1;
    Result<QString> fingerprint = decodeInChunks(paths, format, threads, file);
    file.close();
    const QString path = file.fileName();
    const QByteArray name = QFile::encodeName(path);
    if (!fingerprint) {
        ::unlink(name.constData());
        return fingerprint.error();
    }
    out.fingerprint = fingerprint.value();
    // Opened before the rename: a concurrent run replacing the cache entry cannot take the file from under it.
    Result<std::shared_ptr<SampleStore>> store = SampleStore::open(path, dataOffset, sampleSize, paths.size());
    const bool keep = store && cacheFolder && !key.isEmpty() && cacheKey(paths, format) == key;
    if (keep && ::rename(name.constData(), QFile::encodeName(cachePath(key)).constData()) == 0) {
        store.value()->setPath(cachePath(key));
    } else {
        ::unlink(name.constData());
        if (store)
            store.value()->setPath(path + QStringLiteral(" (deleted)"));
    }
    if (!store)
        return store.error();
    out.store = store.value();
    return out;
}

} // namespace ty
