#pragma once
// One layer's part of every block kind, keyed by the block's type id (core/blocks holds the descriptors).
// Each layer fills one table per part (shape rules, builders, loss functions, dataset readers, ...) once, from
// one registration per kind, and resolves a node's entry once when it plans or compiles the pipeline, so no
// layer chooses a kind's behaviour by comparing type ids, and nothing is looked up by name per training step.
// Tests walk these tables against the block registry, so a kind missing a part fails a test, not a run.

#include <QHash>
#include <QString>
#include <QStringList>

#include <utility>

namespace ty {

template <typename Entry>
class KindTable {
public:
    // Registers the entry of one kind; a second registration of the same type id replaces the first.
    void add(const QString &typeId, Entry entry) { m_entries.insert(typeId, std::move(entry)); }
    // nullptr when the kind has no entry here.
    const Entry *find(const QString &typeId) const
    {
        const auto it = m_entries.constFind(typeId);
        return it == m_entries.constEnd() ? nullptr : &*it;
    }
    bool contains(const QString &typeId) const { return m_entries.contains(typeId); }
    // Every registered type id, sorted (for tests and messages).
    QStringList typeIds() const
    {
        QStringList ids = m_entries.keys();
        ids.sort();
        return ids;
    }

private:
    QHash<QString, Entry> m_entries;
};

} // namespace ty
