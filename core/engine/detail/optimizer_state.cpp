#include "detail/optimizer_state.h"

#include "detail/tensor_codec.h"

#include <QHash>


namespace ty::detail {

namespace {

using torch::optim::OptimizerParamState;

// One named field of an optimizer's per-parameter state. `step` fields are int64 scalars; the others have
// the parameter's shape and dtype.
template <typename State>
struct Field {
    const char *name;
    bool isStep;
    torch::Tensor (*get)(const State &);
    void (*set)(State &, const torch::Tensor &);
};

#define TY_TENSOR_FIELD(State, f)                                                                           \
    Field<State> { #f, false, [](const State &s) { return s.f(); }, [](State &s, const torch::Tensor &t) { s.f(t); } }
#define TY_STEP_FIELD(State)                                                                                \
    Field<State>                                                                                            \
    {                                                                                                       \
        "step", true, [](const State &s) { return torch::tensor(int64_t(s.step()), torch::kLong); },       \
            [](State &s, const torch::Tensor &t) { s.step(t.item<int64_t>()); }                             \
    }

class StateCodec {
public:
    virtual ~StateCodec() = default;
    virtual std::vector<std::pair<QString, torch::Tensor>> read(const OptimizerParamState &state) const = 0;
    virtual const char *fieldKind(const QString &field) const = 0;  // "step", "tensor" or nullptr when unknown
    virtual std::unique_ptr<OptimizerParamState> make(const std::map<QString, torch::Tensor> &fields) const = 0;
};

template <typename State>
class FieldCodec final : public StateCodec {
public:
    explicit FieldCodec(std::vector<Field<State>> fields) : m_fields(std::move(fields)) {}

    std::vector<std::pair<QString, torch::Tensor>> read(const OptimizerParamState &state) const override
    {
        std::vector<std::pair<QString, torch::Tensor>> out;
        const auto &typed = static_cast<const State &>(state);
        for (const Field<State> &f : m_fields) {
            torch::Tensor t = f.get(typed);
            if (t.defined())
                out.emplace_back(QString::fromLatin1(f.name), t);
        }
        return out;
    }
    const char *fieldKind(const QString &field) const override
    {
        for (const Field<State> &f : m_fields)
            if (field == QLatin1String(f.name))
                return f.isStep ? "step" : "tensor";
        return nullptr;
    }
    std::unique_ptr<OptimizerParamState> make(const std::map<QString, torch::Tensor> &fields) const override
    {
        auto state = std::make_unique<State>();
        for (const Field<State> &f : m_fields) {
            const auto it = fields.find(QString::fromLatin1(f.name));
            if (it != fields.end())
                f.set(*state, it->second);
        }
        return state;
    }

private:
    std::vector<Field<State>> m_fields;
};

const StateCodec *codecFor(torch::optim::Optimizer &optimizer)
{
    using namespace torch::optim;
    static const FieldCodec<AdamParamState> adam({TY_STEP_FIELD(AdamParamState), TY_TENSOR_FIELD(AdamParamState, exp_avg),
                                                  TY_TENSOR_FIELD(AdamParamState, exp_avg_sq),
                                                  TY_TENSOR_FIELD(AdamParamState, max_exp_avg_sq)});
    static const FieldCodec<AdamWParamState> adamw({TY_STEP_FIELD(AdamWParamState), TY_TENSOR_FIELD(AdamWParamState, exp_avg),
                                                    TY_TENSOR_FIELD(AdamWParamState, exp_avg_sq),
                                                    TY_TENSOR_FIELD(AdamWParamState, max_exp_avg_sq)});
    static const FieldCodec<SGDParamState> sgd({TY_TENSOR_FIELD(SGDParamState, momentum_buffer)});
    static const FieldCodec<RMSpropParamState> rmsprop({TY_STEP_FIELD(RMSpropParamState), TY_TENSOR_FIELD(RMSpropParamState, square_avg),
                                                        TY_TENSOR_FIELD(RMSpropParamState, momentum_buffer),
                                                        TY_TENSOR_FIELD(RMSpropParamState, grad_avg)});
    static const FieldCodec<AdagradParamState> adagrad({TY_STEP_FIELD(AdagradParamState), TY_TENSOR_FIELD(AdagradParamState, sum)});
    if (dynamic_cast<Adam *>(&optimizer))
        return &adam;
    if (dynamic_cast<AdamW *>(&optimizer))
        return &adamw;
    if (dynamic_cast<SGD *>(&optimizer))
        return &sgd;
    if (dynamic_cast<RMSprop *>(&optimizer))
        return &rmsprop;
    if (dynamic_cast<Adagrad *>(&optimizer))
        return &adagrad;
    return nullptr;
}

#undef TY_TENSOR_FIELD
#undef TY_STEP_FIELD

// The fields every parameter with any state has (the others depend on options: amsgrad, momentum, centered).
QStringList requiredStateFields(torch::optim::Optimizer &optimizer)
{
    using namespace torch::optim;
    if (dynamic_cast<Adam *>(&optimizer) || dynamic_cast<AdamW *>(&optimizer))
        return {QStringLiteral("step"), QStringLiteral("exp_avg"), QStringLiteral("exp_avg_sq")};
    if (dynamic_cast<RMSprop *>(&optimizer))
        return {QStringLiteral("step"), QStringLiteral("square_avg")};
    if (dynamic_cast<Adagrad *>(&optimizer))
        return {QStringLiteral("step"), QStringLiteral("sum")};
    return {};
}

// Running averages of squares and sums of squares: never negative in a state the optimizer wrote (a negative
// one makes the next step's square root NaN).
bool isNonNegativeField(const QString &field)
{
    return field == QLatin1String("exp_avg_sq") || field == QLatin1String("max_exp_avg_sq") ||
           field == QLatin1String("square_avg") || field == QLatin1String("sum");
}

Error stateError(const QString &tensor, const QString &message)
{
    return Error::atField(tensor, QStringLiteral("tensor \"%1\": %2").arg(tensor, message));
}

} // namespace

QString optimizerStatePrefix() { return QStringLiteral("optimizer/"); }

std::vector<std::pair<QString, torch::Tensor>> optimizerStateTensors(torch::optim::Optimizer &optimizer,
                                                                     torch::nn::Module &model)
{
    const StateCodec *codec = codecFor(optimizer);
    if (!codec)
        throw std::runtime_error("the optimizer's state cannot be saved");
    std::vector<std::pair<QString, torch::Tensor>> out;
    for (const auto &item : model.named_parameters()) {
        const auto it = optimizer.state().find(stateKeyOf(item.value()));
        if (it == optimizer.state().end())
            continue;
        const QString prefix = optimizerStatePrefix() + tensorNameOf(item.key()) + QLatin1Char('/');
        for (auto &field : codec->read(*it->second))
            out.emplace_back(prefix + field.first, field.second);
    }
    return out;
}

Status restoreOptimizerState(torch::optim::Optimizer &optimizer, torch::nn::Module &model,
                             const std::map<QString, torch::Tensor> &tensors, bool apply)
{
    const StateCodec *codec = codecFor(optimizer);
    if (!codec)
        return stateError(QString(), QStringLiteral("the optimizer's state cannot be restored"));
    QHash<QString, torch::Tensor> parameters;
    for (const auto &item : model.named_parameters())
        parameters.insert(tensorNameOf(item.key()), item.value());
    std::map<QString, std::map<QString, torch::Tensor>> byParameter;
    for (const auto &[name, tensor] : tensors) {
        const QString rest = name.mid(optimizerStatePrefix().size());
        const qsizetype slash = rest.lastIndexOf(QLatin1Char('/'));
        const QString parameterName = rest.left(slash), field = rest.mid(slash + 1);
        if (slash < 0 || !parameters.contains(parameterName))
            return stateError(name, QStringLiteral("names no parameter of this model"));
        const char *kind = codec->fieldKind(field);
        if (!kind)
            return stateError(name, QStringLiteral("\"%1\" is not part of this optimizer's state").arg(field));
        const torch::Tensor &parameter = parameters.value(parameterName);
        if (QLatin1String(kind) == QLatin1String("step")) {
            if (tensor.dim() != 0 || tensor.scalar_type() != torch::kLong || tensor.item<int64_t>() < 0)
                return stateError(name, QStringLiteral("a step must be one integer >= 0"));
        } else if (tensor.sizes() != parameter.sizes() || tensor.scalar_type() != parameter.scalar_type()) {
            return stateError(name, QStringLiteral("shape %1 does not match the parameter's %2")
                                        .arg(QString::fromStdString(c10::str(tensor.sizes())), QString::fromStdString(c10::str(parameter.sizes()))));
        } else if (!allFinite(tensor)) {
            return stateError(name, QStringLiteral("holds NaN or infinite values"));
        } else if (isNonNegativeField(field) && (tensor < 0).any().item<bool>()) {
            return stateError(name, QStringLiteral("holds negative values, which %1 never has").arg(field));
        }
        byParameter[parameterName][field] = tensor;
    }
    const QStringList required = requiredStateFields(optimizer);
    for (const auto &[parameterName, fields] : byParameter)
        for (const QString &field : required)
            if (fields.find(field) == fields.end())
                return stateError(optimizerStatePrefix() + parameterName + QLatin1Char('/') + field,
                                  QStringLiteral("missing: the state of parameter %1 is incomplete").arg(parameterName));
    if (!apply)
        return Status::success();
    optimizer.state().clear();
    for (const auto &[parameterName, fields] : byParameter) {
        const torch::Tensor &parameter = parameters.value(parameterName);
        std::map<QString, torch::Tensor> onDevice;
        for (const auto &[field, tensor] : fields)
            onDevice[field] = tensor.dim() == 0 && tensor.scalar_type() == torch::kLong ? tensor : tensor.to(parameter.device());
        optimizer.state()[stateKeyOf(parameter)] = codec->make(onDevice);
    }
    return Status::success();
}

} // namespace ty::detail
