#pragma once
// Errors as values at module boundaries: an Error names where the problem is (file, node, field, line)
// so every front end can print one clear message.

#include <QString>

#include <optional>
#include <utility>

namespace ty {

struct Error {
    QString message;
    QString file;   // the file the problem is in, if any
    QString node;   // the graph node id, if any
    QString field;  // a parameter, port or settings key, if any
    int line = 0;   // 1-based; 0 when unknown
    int column = 0;

    Error() = default;
    explicit Error(QString what) : message(std::move(what)) {}
    // Where the problem is, then what it is: Error::inFile(path, "truncated"), Error::atNode("conv1", "...", "kernel_size").
    static Error inFile(QString file, QString message, QString field = {});
    static Error atNode(QString node, QString message, QString field = {});
    static Error atField(QString field, QString message);

    // "file:line:column: node 'conv1', field 'kernel_size': message"
    QString toString() const;
};

// Ends the process with the error's message: reading the value of a failed Result is a programming error,
// reported clearly instead of reading an empty optional.
[[noreturn]] void failUncheckedResult(const Error &error);

// Result<T>: either a value or an Error. value() of an error ends the process (failUncheckedResult).
template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const T &value() const & { return checked(); }
    T &value() & { return const_cast<T &>(checked()); }
    // By value, so `for (x : f().value())` never iterates a destroyed temporary.
    T value() && { return std::move(const_cast<T &>(checked())); }
    const Error &error() const { return m_error; }

private:
    const T &checked() const
    {
        if (!m_value)
            failUncheckedResult(m_error);
        return *m_value;
    }
    std::optional<T> m_value;
    Error m_error;
};

// Status: success or an Error.
class Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)), m_failed(true) {}
    static Status success() { return Status(); }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

} // namespace ty
