#include "detail/tensor_codec.h"

#include <QtGlobal>

#include <cstring>

// safetensors data is little-endian; tensors are copied byte for byte.
static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "tensor files are read and written on little-endian machines only");

namespace ty::detail {

namespace {

struct TypePair {
    torch::ScalarType torchType;
    TensorDType fileType;
};

const TypePair kTypes[] = {
    {torch::kFloat, TensorDType::F32}, {torch::kDouble, TensorDType::F64}, {torch::kHalf, TensorDType::F16},
    {torch::kBFloat16, TensorDType::BF16}, {torch::kLong, TensorDType::I64}, {torch::kInt, TensorDType::I32},
    {torch::kShort, TensorDType::I16}, {torch::kChar, TensorDType::I8}, {torch::kByte, TensorDType::U8},
    {torch::kBool, TensorDType::Bool},
};

} // namespace

std::optional<TensorDType> tensorDTypeOf(torch::ScalarType type)
{
    for (const TypePair &p : kTypes)
        if (p.torchType == type)
            return p.fileType;
    return std::nullopt;
}

torch::ScalarType scalarTypeOf(TensorDType dtype)
{
    for (const TypePair &p : kTypes)
        if (p.fileType == dtype)
            return p.torchType;
    return torch::kFloat;
}

NamedTensor toNamedTensor(const QString &name, const torch::Tensor &tensor)
{
    const std::optional<TensorDType> dtype = tensorDTypeOf(tensor.scalar_type());
    if (!dtype)
        throw std::runtime_error("tensor " + name.toStdString() + " has a dtype that tensor files cannot hold");
    const torch::Tensor cpu = tensor.detach().to(torch::kCPU).contiguous();
    NamedTensor out;
    out.name = name;
    out.dtype = *dtype;
    for (int64_t d : cpu.sizes())
        out.shape.append(d);
    out.data = QByteArray(static_cast<const char *>(cpu.data_ptr()), qsizetype(cpu.nbytes()));
    return out;
}

torch::Tensor fromNamedTensor(const NamedTensor &tensor)
{
    std::vector<int64_t> shape(tensor.shape.cbegin(), tensor.shape.cend());
    torch::Tensor out = torch::empty(shape, torch::TensorOptions().dtype(scalarTypeOf(tensor.dtype)));
    if (size_t(tensor.data.size()) != out.nbytes())
        throw std::runtime_error("tensor " + tensor.name.toStdString() + " holds the wrong number of bytes");
    if (out.nbytes() > 0)
        std::memcpy(out.data_ptr(), tensor.data.constData(), out.nbytes());
    return out;
}

QString tensorNameOf(const std::string &key)
{
    QString name = QString::fromStdString(key);
    name.replace(QLatin1Char('/'), QLatin1Char('.'));  // a node inside a composite: "stage2/unit1/conv1"
    return name;
}

std::vector<std::pair<QString, torch::Tensor>> modelTensors(torch::nn::Module &model)
{
    std::vector<std::pair<QString, torch::Tensor>> out;
    for (const auto &item : model.named_parameters())
        out.emplace_back(tensorNameOf(item.key()), item.value());
    for (const auto &item : model.named_buffers())
        out.emplace_back(tensorNameOf(item.key()), item.value());
    return out;
}

bool allFinite(const torch::Tensor &tensor)
{
    if (!tensor.is_floating_point() || tensor.numel() == 0)
        return true;
    return torch::isfinite(tensor).all().item<bool>();
}

} // namespace ty::detail
