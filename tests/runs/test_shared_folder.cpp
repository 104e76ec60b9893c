// A run database on a shared folder: on a real FUSE mount (bindfs, when installed and mounting is allowed here)
// it is read but never written: listing works, every write (a new run, notes, the run writer) is refused with a
// message naming the file system and the safe ways, and the file's bytes stay as they were; a database that does
// not exist there is not created. A local folder is not taken for a shared one.

#include "test_suite.h"
#include "run_database.h"
#include "run_writer.h"
#include "shared_folder.h"
#include "test_runs_support.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ty;

namespace {

QByteArray sha256Of(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

} // namespace

class TestSharedFolder : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString source, mount;
    bool mounted = false;

private Q_SLOTS:
    void initTestCase()
    {
        source = dir.filePath(QStringLiteral("local"));
        mount = dir.filePath(QStringLiteral("mounted"));
        QVERIFY(QDir().mkpath(source) && QDir().mkpath(mount));
        const QString bindfs = QStandardPaths::findExecutable(QStringLiteral("bindfs"));
        if (bindfs.isEmpty())
            return;
        QProcess process;
        process.start(bindfs, {source, mount});
        mounted = process.waitForFinished(20000) && process.exitCode() == 0 && !sharedFileSystemOf(mount).isEmpty();
    }

    void cleanupTestCase()
    {
        if (mounted)
            QProcess::execute(QStringLiteral("fusermount"), {QStringLiteral("-u"), mount});
    }

    void aLocalFolderIsNotShared()
    {
        QCOMPARE(sharedFileSystemOf(source), QString());
        QCOMPARE(sharedFileSystemOf(dir.filePath(QStringLiteral("not/yet/there.sqlite"))), QString());
    }

    void aDatabaseOnFuseIsReadButNeverWritten()
    {
        if (!mounted)
            QSKIP("bindfs is not installed, or FUSE cannot be mounted here");
        qint64 id = 0;
        {
            auto local = RunDatabase::open(source + QStringLiteral("/runs.sqlite"));
            QVERIFY(local.ok());
            id = local.value()->createRun(testing::sampleNewRun()).value();
        }
        const QString shared = mount + QStringLiteral("/runs.sqlite");
        QCOMPARE(sharedFileSystemOf(shared), QStringLiteral("FUSE"));
        const QByteArray before = sha256Of(source + QStringLiteral("/runs.sqlite"));

        auto opened = RunDatabase::open(shared);
        QVERIFY2(opened.ok(), opened.ok() ? "" : qPrintable(opened.error().toString()));
        QCOMPARE(opened.value()->listRuns().value().size(), 1);
        QCOMPARE(opened.value()->run(id).value().name, QStringLiteral("mnist small"));
        const Result<qint64> created = opened.value()->createRun(testing::sampleNewRun());
        QVERIFY(!created.ok());
        const Status notes = opened.value()->setNotes(id, QStringLiteral("x"));
        QVERIFY(!notes.ok());
        for (const Error &refusal : {created.error(), notes.error()}) {
            QVERIFY2(refusal.message.contains(QStringLiteral("on a FUSE file system")), qPrintable(refusal.message));
            QVERIFY2(refusal.message.contains(QStringLiteral("local disk")), qPrintable(refusal.message));
        }
        RunWriter writer(shared, id);
        QVERIFY(!writer.start().ok());
        opened.value().reset();
        QCOMPARE(sha256Of(source + QStringLiteral("/runs.sqlite")), before);

        QVERIFY(!RunDatabase::open(mount + QStringLiteral("/new.sqlite")).ok());
        QVERIFY(!QFile::exists(source + QStringLiteral("/new.sqlite")));
    }
};

TY_TEST_CLASS(TestSharedFolder)
#include "test_shared_folder.moc"
