#include "test_runs_support.h"

#if defined(Q_OS_UNIX)
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(Q_OS_LINUX)
#include <linux/capability.h>
#include <sys/syscall.h>
#endif

namespace ty::testing {

qint64 deadProcessId()
{
#if defined(Q_OS_UNIX)
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    if (child < 0)
        return 0;
    int status = 0;
    ::waitpid(child, &status, 0);  // reaped: kill(child, 0) now fails with ESRCH
    return child;
#else
    return 0;
#endif
}

#if defined(Q_OS_LINUX)
namespace {
constexpr unsigned kOverrides =
    (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH) | (1u << CAP_FOWNER);

bool threadCapabilities(__user_cap_data_struct data[2], bool set)
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};  // pid 0: the calling thread only
    return ::syscall(set ? SYS_capset : SYS_capget, &header, data) == 0;
}
} // namespace
#endif

FilePermissionsBind::FilePermissionsBind()
{
#if defined(Q_OS_LINUX)
    if (::geteuid() != 0) {
        m_ok = true;
        return;
    }
    __user_cap_data_struct data[2] = {};
    if (!threadCapabilities(data, false))
        return;
    m_savedEffective[0] = data[0].effective;
    m_savedEffective[1] = data[1].effective;
    data[0].effective &= ~kOverrides;
    if (!threadCapabilities(data, true))
        return;
    m_dropped = true;
    m_ok = true;
#elif defined(Q_OS_UNIX)
    m_ok = ::geteuid() != 0;
#endif
}

FilePermissionsBind::~FilePermissionsBind()
{
#if defined(Q_OS_LINUX)
    if (!m_dropped)
        return;
    __user_cap_data_struct data[2] = {};
    if (threadCapabilities(data, false)) {
        data[0].effective = m_savedEffective[0];
        data[1].effective = m_savedEffective[1];
        threadCapabilities(data, true);
    }
#endif
}

} // namespace ty::testing
