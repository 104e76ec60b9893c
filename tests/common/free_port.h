#pragma once
// A TCP port on 127.0.0.1 that nothing listens on now, for a test's c10d store.

namespace tytest {

int freePort();

} // namespace tytest
