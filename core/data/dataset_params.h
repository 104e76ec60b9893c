#pragma once
// Reading a dataset block's parameters from a DatasetRequest. The graph validator has normally checked them
// already; these checks keep the readers safe when called directly. A missing key takes the given default
// (the same as the block's spec in core/blocks/builtin_blocks_data.cpp). The first problem is kept as an
// Error naming the node and the field; later reads then return their defaults, so a reader can collect
// every value and check ok() once.

#include "dataset_loader.h"

#include <QStringList>

#include <cstdint>

namespace ty {

class DatasetParams {
public:
    explicit DatasetParams(const DatasetRequest &request);

    int64_t integer(const QString &name, int64_t fallback, int64_t minimum, int64_t maximum);
    double number(const QString &name, double fallback, double minimum, double maximum);
    bool boolean(const QString &name, bool fallback);
    QString string(const QString &name, const QString &fallback = QString());
    QString choice(const QString &name, const QString &fallback, const QStringList &choices);
    // A path parameter resolved against the request's baseDir; empty when the parameter is empty.
    QString path(const QString &name, const QString &fallback = QString());

    bool ok() const { return !m_failed; }
    const Error &firstError() const { return m_error; }

    // An Error for this request's node: `field` and `file` as given.
    Error error(const QString &field, const QString &message, const QString &file = QString()) const;
    // `error` with the node and field filled in where it names none.
    Error withContext(Error error, const QString &field) const;

    const QString &nodeId() const { return m_request.nodeId; }

    // Keeps `message` as the problem of `field` unless an earlier one is kept.
    void fail(const QString &field, const QString &message);

private:

    const DatasetRequest &m_request;
    Error m_error;
    bool m_failed = false;
};

} // namespace ty
