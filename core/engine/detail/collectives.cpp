#define USE_C10D_GLOO 1  // the Gloo process group, which its header hides without it
#include "detail/collectives.h"

#include "detail/nccl_group.h"
#include "distributed.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>

namespace ty::detail {

Collectives::Collectives(c10::intrusive_ptr<CollectiveBackend> group, int rank, int size, std::optional<torch::Device> staging)
    : m_group(std::move(group)), m_staging(staging), m_rank(rank), m_size(size)
{
}

torch::Tensor Collectives::staged(const torch::Tensor &t) const
{
    return m_staging && t.device() != *m_staging ? t.to(*m_staging) : t;
}

Collectives::~Collectives()
{
    if (m_staging)  // NCCL's group
        closeNcclGroup(*m_group, m_peerLost);
}

template <typename Call>
void Collectives::checked(const char *what, Call call)
{
    try {
        call();
    } catch (const std::exception &e) {
        m_peerLost = true;
        const QString first = QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
        throw PeerLost(QStringLiteral("a process of the distributed run is gone or did not answer (%1 on rank %2: %3)")
                           .arg(QString::fromLatin1(what)).arg(m_rank).arg(first).toStdString());
    }
}

std::vector<std::vector<size_t>> packBuckets(const std::vector<torch::Tensor> &tensors, int64_t firstCap, int64_t cap)
{
    std::vector<std::vector<size_t>> buckets;
    int64_t bytes = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const torch::Tensor &t = tensors[i];
        const int64_t size = t.numel() * int64_t(t.element_size());
        const torch::Tensor *first = buckets.empty() ? nullptr : &tensors[buckets.back().front()];
        if (!first || first->scalar_type() != t.scalar_type() || first->device() != t.device()
            || bytes + size > (buckets.size() == 1 ? firstCap : cap)) {
            buckets.emplace_back();
            bytes = 0;
        }
        buckets.back().push_back(i);
        bytes += size;
    }
    return buckets;
}

void Collectives::sum(const std::vector<torch::Tensor> &tensors)
{
    // Each bucket flattened into one buffer (one flat tensor, as c10d takes it).
    const std::vector<std::vector<size_t>> buckets = packBuckets(tensors, kBucketBytes, kBucketBytes);
    std::vector<std::vector<torch::Tensor>> buffers(buckets.size());
    std::vector<c10::intrusive_ptr<c10d::Work>> works(buckets.size());
    checked("sum", [&] {
        for (size_t b = 0; b < buckets.size(); ++b) {
            std::vector<torch::Tensor> flat;
            flat.reserve(buckets[b].size());
            for (size_t i : buckets[b])
                flat.push_back(tensors[i].reshape({-1}));
            buffers[b] = {staged(torch::cat(flat))};
            works[b] = m_group->allreduce(buffers[b]);
        }
        for (size_t b = 0; b < buckets.size(); ++b) {
            works[b]->wait();
            int64_t offset = 0;
            for (size_t i : buckets[b]) {
                const torch::Tensor &t = tensors[i];
                t.copy_(buffers[b].front().narrow(0, offset, t.numel()).view_as(t));
                offset += t.numel();
            }
        }
    });
}

c10::intrusive_ptr<c10d::Work> Collectives::startSum(std::vector<torch::Tensor> &flat)
{
    c10::intrusive_ptr<c10d::Work> work;
    checked("sum", [&] { work = m_group->allreduce(flat); });
    return work;
}

void Collectives::finishSum(const c10::intrusive_ptr<c10d::Work> &work)
{
    checked("sum", [&] { work->wait(); });
}

void Collectives::broadcast(const std::vector<torch::Tensor> &tensors)
{
    checked("broadcast", [&] {
        std::vector<c10::intrusive_ptr<c10d::Work>> works;
        std::vector<std::vector<torch::Tensor>> buffers;
        buffers.reserve(tensors.size());
        for (const torch::Tensor &t : tensors) {
            buffers.push_back({staged(t.is_contiguous() ? t : t.contiguous())});
            works.push_back(m_group->broadcast(buffers.back()));
        }
        for (size_t i = 0; i < tensors.size(); ++i) {
            works[i]->wait();
            if (!buffers[i].front().is_same(tensors[i]))
                tensors[i].copy_(buffers[i].front());
        }
    });
}

torch::Tensor Collectives::gatherRows(const torch::Tensor &rows)
{
    // Counts first, then every rank's rows padded to the longest.
    torch::Tensor counts = torch::zeros({m_size}, torch::kLong);
    counts[m_rank] = rows.size(0);
    sum({counts});
    const int64_t longest = counts.max().item<int64_t>();
    std::vector<int64_t> shape = rows.sizes().vec();
    shape[0] = longest;
    torch::Tensor padded = staged(torch::zeros(shape, rows.options()));
    padded.narrow(0, 0, rows.size(0)).copy_(rows);
    std::vector<std::vector<torch::Tensor>> output(1);
    for (int r = 0; r < m_size; ++r)
        output[0].push_back(torch::empty_like(padded));
    std::vector<torch::Tensor> input{padded};
    checked("gather", [&] { m_group->allgather(output, input)->wait(); });
    std::vector<torch::Tensor> parts;
    for (int r = 0; r < m_size; ++r)
        parts.push_back(output[0][size_t(r)].narrow(0, 0, counts[r].item<int64_t>()));
    return torch::cat(parts, 0).to(rows.device());
}

std::pair<int64_t, int64_t> Collectives::shardOf(int64_t count, int rank) const
{
    const int64_t base = count / m_size, extra = count % m_size;
    const int64_t first = rank * base + std::min<int64_t>(rank, extra);
    return {first, first + base + (rank < extra ? 1 : 0)};
}

} // namespace ty::detail

namespace ty {

struct StoreServer::Store {
    c10::intrusive_ptr<c10d::TCPStore> store;
};

StoreServer::StoreServer(std::unique_ptr<Store> store) : m_store(std::move(store)) {}

StoreServer::~StoreServer() = default;

int StoreServer::port() const
{
    return m_store->store->getPort();
}

Result<std::shared_ptr<StoreServer>> StoreServer::start(const QString &host, int worldSize, double timeoutSeconds)
{
    try {
        c10d::TCPStoreOptions options;
        options.port = 0;  // the kernel's choice, made as it binds
        options.isServer = true;
        options.numWorkers = size_t(worldSize);
        options.waitWorkers = false;  // connect() waits, once the others were started
        options.timeout = std::chrono::milliseconds(int64_t(timeoutSeconds * 1000));
        auto store = std::make_unique<Store>();
        store->store = c10::make_intrusive<c10d::TCPStore>(host.toStdString(), options);
        if (store->store->getPort() == 0)
            return Error(QStringLiteral("the distributed run's store did not say which port it listens on"));
        return std::shared_ptr<StoreServer>(new StoreServer(std::move(store)));
    } catch (const std::exception &e) {
        return Error(QStringLiteral("could not serve the distributed run's store on %1: %2")
                         .arg(host, QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

ProcessGroup::ProcessGroup(const DistributedSetup &setup, const QString &backend, std::unique_ptr<detail::Collectives> collectives)
    : m_setup(setup), m_backend(backend), m_collectives(std::move(collectives))
{
}

ProcessGroup::~ProcessGroup() = default;

ProcessGroup::Agreement ProcessGroup::agree(bool ready, const QByteArray &presetSha256)
{
    // One row per rank, summed: each rank fills its own.
    const int size = m_setup.worldSize, rank = m_setup.rank;
    torch::Tensor rows = torch::zeros({size, 33}, torch::kDouble);
    rows[rank][0] = ready ? 0.0 : 1.0;
    for (int i = 0; i < 32 && i < presetSha256.size(); ++i)
        rows[rank][i + 1] = double(uint8_t(presetSha256[i]));
    m_collectives->sum({rows});
    Agreement agreement;
    for (int r = 0; r < size; ++r) {
        if (rows[r][0].item<double>() > 0)
            agreement.failed << r;
        else if (rows[0][0].item<double>() == 0 && !torch::equal(rows[r].slice(0, 1), rows[0].slice(0, 1)))
            agreement.different << r;
    }
    return agreement;
}

// Auto takes NCCL when training on CUDA and every process on this machine has a GPU of its own (NCCL refuses two
// processes on one GPU), else Gloo.
Result<QString> ProcessGroup::backendFor(const DistributedSetup &setup, const QString &choice, const QString &device)
{
    const bool cuda = device != QLatin1String("cpu") && torch::cuda::is_available();
    if (choice == QLatin1String("gloo"))
        return QStringLiteral("gloo");
    if (choice == QLatin1String("nccl")) {
        if (!detail::ncclBuilt())
            return Error::atField(QStringLiteral("training.dist_backend"),
                                  QStringLiteral("this build has no NCCL (it needs a CUDA LibTorch and NCCL's header, "
                                                 "docs/distributed.md): use gloo or auto"));
        if (!cuda)
            return Error::atField(QStringLiteral("training.dist_backend"),
                                  QStringLiteral("NCCL works on CUDA, but %1")
                                      .arg(device == QLatin1String("cpu") ? QStringLiteral("training.device is cpu")
                                                                          : QStringLiteral("no CUDA device is available")));
        if (setup.localWorldSize > int(torch::cuda::device_count()))
            return Error::atField(QStringLiteral("training.dist_backend"),
                                  QStringLiteral("NCCL needs a GPU for each process: %1 processes on this machine, %2 GPUs "
                                                 "(use gloo or auto)")
                                      .arg(setup.localWorldSize).arg(torch::cuda::device_count()));
        return QStringLiteral("nccl");
    }
    const int onThisMachine = std::max(1, setup.localWorldSize);
    return detail::ncclBuilt() && cuda && onThisMachine <= int(torch::cuda::device_count()) ? QStringLiteral("nccl")
                                                                                          : QStringLiteral("gloo");
}

Result<std::shared_ptr<ProcessGroup>> ProcessGroup::connect(const DistributedSetup &setup, double timeoutSeconds,
                                                             const QString &backendChoice, const QString &device,
                                                             const std::shared_ptr<StoreServer> &server)
{
    const Result<QString> backend = backendFor(setup, backendChoice, device);
    if (!backend)
        return backend.error();
    const auto timeout = std::chrono::milliseconds(int64_t(timeoutSeconds * 1000));
    const QString where = QStringLiteral("%1:%2").arg(setup.masterAddr).arg(setup.masterPort);
    try {
        // Rank 0 serves the store, unless torchrun's agent already does (then, as PyTorch does, every rank is a
        // client of it under this attempt's prefix).
        const bool agentStore = !setup.agentStorePrefix.isEmpty();
        c10d::TCPStoreOptions storeOptions;
        storeOptions.port = uint16_t(setup.masterPort);
        storeOptions.isServer = setup.rank == 0 && !agentStore;
        storeOptions.numWorkers = size_t(setup.worldSize);
        storeOptions.waitWorkers = true;
        storeOptions.multiTenant = !agentStore;
        storeOptions.timeout = timeout;
        c10::intrusive_ptr<c10d::Store> store;
        if (server) {
            server->store().store->waitForWorkers();
            store = server->store().store;
        } else {
            store = c10::make_intrusive<c10d::TCPStore>(setup.masterAddr.toStdString(), storeOptions);
        }
        if (agentStore)
            store = c10::make_intrusive<c10d::PrefixStore>(setup.agentStorePrefix.toStdString(), store);
        // Rank 0's backend is every rank's: a rank that could not read its preset (it joins only to tell the
        // others, asking for auto) or sees another number of GPUs still meets them on the same one.
        QString chosen = backend.value();
        const std::string key = "trainyard/backend";
        if (setup.rank == 0) {
            const QByteArray name = chosen.toLatin1();
            store->set(key, std::vector<uint8_t>(name.begin(), name.end()));
        } else {
            const std::vector<uint8_t> name = store->get(key);
            chosen = QString::fromLatin1(reinterpret_cast<const char *>(name.data()), int(name.size()));
        }
        if (chosen == QLatin1String("nccl") && (!detail::ncclBuilt() || !torch::cuda::is_available()))
            return Error::atField(QStringLiteral("training.dist_backend"),
                                  QStringLiteral("rank 0 took NCCL, which rank %1 cannot use (%2)")
                                      .arg(setup.rank)
                                      .arg(detail::ncclBuilt() ? QStringLiteral("no CUDA device") : QStringLiteral("this build has no NCCL")));
        c10::intrusive_ptr<detail::CollectiveBackend> group;
        std::optional<torch::Device> staging;
        if (chosen == QLatin1String("nccl")) {
            // This process's GPU, as training takes it (by LOCAL_RANK); host tensors pass through it.
            staging = torch::Device(torch::kCUDA, int8_t(setup.localRank % int(torch::cuda::device_count())));
            group = detail::ncclGroup(store, setup.rank, setup.worldSize, timeout);
        } else {
            auto options = c10d::ProcessGroupGloo::Options::create(timeout);
            // The interface named by GLOO_SOCKET_IFNAME (as PyTorch reads it); the loopback one when every rank is
            // on this machine; else the address this machine's host name resolves to.
            const QString interface = qEnvironmentVariable("GLOO_SOCKET_IFNAME");
            const bool local = setup.masterAddr == QLatin1String("localhost") || setup.masterAddr.startsWith(QLatin1String("127."));
            options->devices.push_back(!interface.isEmpty() ? c10d::ProcessGroupGloo::createDeviceForInterface(interface.toStdString())
                                       : local              ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                                            : c10d::ProcessGroupGloo::createDefaultDevice());
            group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, setup.rank, setup.worldSize, options);
        }
        return std::shared_ptr<ProcessGroup>(new ProcessGroup(
            setup, chosen, std::make_unique<detail::Collectives>(std::move(group), setup.rank, setup.worldSize, staging)));
    } catch (const std::exception &e) {
        return Error(QStringLiteral("rank %1 of %2 could not join the distributed run at %3 within %4 s (training.dist_timeout): %5")
                         .arg(setup.rank).arg(setup.worldSize).arg(where).arg(timeoutSeconds)
                         .arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0)));
    }
}

} // namespace ty
