// Builders of the sequence blocks: embedding, LSTM and GRU (batch first, as the samples are [steps, features]).

#include "detail/block_ops.h"

#include <stdexcept>

namespace ty::detail {

namespace {

// Ids arrive as floats (a data set's arrays are float or bytes); each must name a row of the table.
BuiltOp buildEmbedding(const QJsonObject &params, const Shape &)
{
    const int64_t rows = intParam(params, "num_embeddings");
    auto table = torch::nn::Embedding(torch::nn::EmbeddingOptions(rows, intParam(params, "dim")));
    return unaryOp([table, rows](const torch::Tensor &x, bool) mutable {
        const torch::Tensor ids = x.to(torch::kLong);
        // One read from the device per batch: the smallest and largest id together.
        if (ids.numel() > 0) {
            const auto [low, high] = torch::aminmax(ids);
            const torch::Tensor bounds = torch::stack({low, high}).cpu();
            const int64_t lowest = bounds[0].item<int64_t>(), highest = bounds[1].item<int64_t>();
            if (lowest < 0 || highest >= rows)
                throw std::runtime_error("id " + std::to_string(lowest < 0 ? lowest : highest) + " is outside the embedding's table of " +
                                         std::to_string(rows) + " rows (raise num_embeddings to the number of distinct ids)");
        }
        return table->forward(ids);
    }, table.ptr());
}

bool returnsSequence(const QJsonObject &params)
{
    return params.value(QStringLiteral("output")).toString() == QStringLiteral("sequence");
}

// The final state of the last layer, both directions joined: [B, directions * hidden].
torch::Tensor lastState(const torch::Tensor &finalStates, int64_t directions, int64_t batch)
{
    return finalStates.slice(0, finalStates.size(0) - directions).transpose(0, 1).reshape({batch, -1});
}

template <typename Options>
Options recurrentOptions(const QJsonObject &params, const Shape &in)
{
    return Options(in[1], intParam(params, "hidden_size"))
        .num_layers(intParam(params, "num_layers"))
        .bidirectional(params.value(QStringLiteral("bidirectional")).toBool())
        .batch_first(true);
}

BuiltOp buildLstm(const QJsonObject &params, const Shape &in)
{
    auto lstm = torch::nn::LSTM(recurrentOptions<torch::nn::LSTMOptions>(params, in));
    const bool sequence = returnsSequence(params);
    const int64_t directions = lstm->options.bidirectional() ? 2 : 1;
    return unaryOp([lstm, sequence, directions](const torch::Tensor &x, bool) mutable {
        auto [outputs, states] = lstm->forward(x);
        return sequence ? outputs : lastState(std::get<0>(states), directions, x.size(0));
    }, lstm.ptr());
}

BuiltOp buildGru(const QJsonObject &params, const Shape &in)
{
    auto gru = torch::nn::GRU(recurrentOptions<torch::nn::GRUOptions>(params, in));
    const bool sequence = returnsSequence(params);
    const int64_t directions = gru->options.bidirectional() ? 2 : 1;
    return unaryOp([gru, sequence, directions](const torch::Tensor &x, bool) mutable {
        auto [outputs, finalStates] = gru->forward(x);
        return sequence ? outputs : lastState(finalStates, directions, x.size(0));
    }, gru.ptr());
}

} // namespace

void addSequenceBuilders(KindTable<OpBuilder> &builders)
{
    builders.add(QStringLiteral("layer.embedding"), buildEmbedding);
    builders.add(QStringLiteral("layer.lstm"), buildLstm);
    builders.add(QStringLiteral("layer.gru"), buildGru);
}

} // namespace ty::detail
