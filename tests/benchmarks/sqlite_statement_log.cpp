// sqlite-statement-log: an LD_PRELOAD module that logs every SQLite connection a process opens (sqlite3_open_v2, as
// Qt's QSQLITE driver and RunWriter call it) and every statement it runs (sqlite3_trace_v2), one line each with a
// monotonic time: "<seconds> open|stmt|close <connection> <file or SQL>". Each process writes its own file,
// $SQLITE_STATEMENT_LOG.<command>.<pid>. app_sql_load.sh uses it to count the connections and queries of the idle
// desktop app (docs/training-ui.md, "Watching the database"). A measuring aid, never linked into the programs.

#include <sqlite3.h>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

FILE *logFile = nullptr;
pthread_mutex_t logLock = PTHREAD_MUTEX_INITIALIZER;

FILE *openLog()
{
    char command[64] = "unknown";
    if (FILE *comm = std::fopen("/proc/self/comm", "r")) {
        if (std::fscanf(comm, "%63s", command) != 1)
            command[0] = '\0';
        std::fclose(comm);
    }
    const char *base = std::getenv("SQLITE_STATEMENT_LOG");
    char name[512];
    std::snprintf(name, sizeof name, "%s.%s.%d", base ? base : "/tmp/sqlite-statements", command, int(getpid()));
    return std::fopen(name, "w");
}

void logLine(const char *kind, const void *connection, const char *text)
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&logLock);
    if (!logFile)
        logFile = openLog();
    if (logFile) {
        std::fprintf(logFile, "%.3f %s %p %s\n", double(now.tv_sec) + double(now.tv_nsec) / 1e9, kind, connection,
                     text ? text : "");
        std::fflush(logFile);
    }
    pthread_mutex_unlock(&logLock);
}

int onTrace(unsigned type, void *, void *statement, void *sql)
{
    const char *text = static_cast<const char *>(sql);
    if (type == SQLITE_TRACE_STMT && !(text && text[0] == '-' && text[1] == '-'))  // "--": a trigger's statement
        logLine("stmt", sqlite3_db_handle(static_cast<sqlite3_stmt *>(statement)), text);
    return 0;
}

template <typename F>
F next(const char *name)
{
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

} // namespace

extern "C" int sqlite3_open_v2(const char *file, sqlite3 **db, int flags, const char *vfs)
{
    static const auto real = next<int (*)(const char *, sqlite3 **, int, const char *)>("sqlite3_open_v2");
    const int rc = real(file, db, flags, vfs);
    if (rc == SQLITE_OK && *db) {
        sqlite3_trace_v2(*db, SQLITE_TRACE_STMT, onTrace, nullptr);
        logLine("open", *db, file);
    }
    return rc;
}

extern "C" int sqlite3_close(sqlite3 *db)
{
    static const auto real = next<int (*)(sqlite3 *)>("sqlite3_close");
    logLine("close", db, "");
    return real(db);
}

extern "C" int sqlite3_close_v2(sqlite3 *db)
{
    static const auto real = next<int (*)(sqlite3 *)>("sqlite3_close_v2");
    logLine("close", db, "");
    return real(db);
}
