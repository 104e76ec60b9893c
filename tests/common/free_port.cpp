#include "free_port.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tytest {

ReservedPort::ReservedPort()
{
    m_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (m_fd < 0)
        return;
    const int reuse = 1;
    setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) == 0 &&
        getsockname(m_fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
        m_port = ntohs(address.sin_port);  // the kernel picked it; held until this is destroyed
}

ReservedPort::~ReservedPort()
{
    if (m_fd >= 0)
        close(m_fd);
}

} // namespace tytest
