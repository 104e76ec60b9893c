#pragma once
// A TCP port on 127.0.0.1 for a test's c10d store, held for the test: bound (not listening) with SO_REUSEADDR,
// so that the kernel hands it to no other socket that asks for any free port, while the store, which binds with
// SO_REUSEADDR too, can still take it. A port found free and closed again could be taken by anything before the
// store listened: the race `trainyard-cli --nproc` avoids by listening before it starts the ranks.

namespace tytest {

class ReservedPort {
public:
    ReservedPort();
    ~ReservedPort();
    ReservedPort(const ReservedPort &) = delete;
    ReservedPort &operator=(const ReservedPort &) = delete;

    int number() const { return m_port; }  // 0 when no port could be reserved

private:
    int m_fd = -1;
    int m_port = 0;
};

} // namespace tytest
