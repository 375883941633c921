// Reading and writing a step dump's steps.json with llvm::json, and reading
// its tensor files.
#include "StepDumpIndex.h"

#include "kiln/Evaluator/TensorIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {

constexpr const char *kDTypeNames[] = {"bool", "i8",  "i16", "i32", "i64",
                                       "u8",   "u16", "u32", "u64", "f16",
                                       "bf16", "f32", "f64"};

llvm::Error indexError(const std::string &path, const llvm::Twine &what) {
  return llvm::createStringError(path + ": " + what.str());
}

std::vector<int64_t> readInts(const llvm::json::Array *array) {
  std::vector<int64_t> values;
  if (array)
    for (const llvm::json::Value &value : *array)
      if (std::optional<int64_t> number = value.getAsInteger())
        values.push_back(*number);
  return values;
}

llvm::Expected<DumpTensor> readTensor(const llvm::json::Value &value,
                                      const std::string &path,
                                      const std::string &where) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return indexError(path, where + " is not an object");
  DumpTensor tensor;
  if (auto dtype = object->getString("dtype"))
    tensor.dtype = dtype->str();
  if (!dtypeFromDumpName(tensor.dtype))
    return indexError(path,
                      where + " has no known dtype ('" + tensor.dtype + "')");
  if (!object->getArray("shape"))
    return indexError(path, where + " has no shape");
  tensor.shape = readInts(object->getArray("shape"));
  tensor.fullShape = object->getArray("full_shape")
                         ? readInts(object->getArray("full_shape"))
                         : tensor.shape;
  if (auto name = object->getString("name"))
    tensor.name = name->str();
  if (auto file = object->getString("file"))
    tensor.file = file->str();
  if (auto buffer = object->getInteger("buffer"))
    tensor.buffer = *buffer;
  return tensor;
}

llvm::json::Value tensorJson(const DumpTensor &tensor) {
  llvm::json::Object object{{"dtype", tensor.dtype},
                            {"shape", tensor.shape},
                            {"full_shape", tensor.fullShape}};
  if (tensor.buffer >= 0)
    object["buffer"] = tensor.buffer;
  if (!tensor.name.empty())
    object["name"] = tensor.name;
  if (!tensor.file.empty())
    object["file"] = tensor.file;
  return llvm::json::Value(std::move(object));
}

} // namespace

std::optional<eval::DType> dtypeFromDumpName(llvm::StringRef name) {
  for (size_t i = 0; i < std::size(kDTypeNames); ++i)
    if (name == kDTypeNames[i])
      return static_cast<eval::DType>(i);
  return std::nullopt;
}

const char *dumpNameOfDType(eval::DType dtype) {
  return kDTypeNames[static_cast<size_t>(dtype)];
}

llvm::Expected<StepDumpIndex> readStepDumpIndex(const std::string &directory) {
  std::string path = directory + "/steps.json";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read " + path + ": " +
                                   buffer.getError().message());
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return indexError(path, "not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != "kiln-step-dump")
    return indexError(path, "not a kiln step dump (\"format\" is not "
                            "\"kiln-step-dump\")");
  if (root->getInteger("version") != 1)
    return indexError(path, "unsupported version (this kiln-interpret reads "
                            "version 1)");
  StepDumpIndex index;
  auto text = [&](llvm::StringRef key) {
    auto value = root->getString(key);
    return value ? value->str() : std::string();
  };
  index.producer = text("producer");
  index.artifact = text("artifact");
  index.entryPoint = text("entry_point");
  index.convPath = text("conv_path");
  if (!text("mode").empty())
    index.mode = text("mode");
  index.batch = root->getInteger("batch").value_or(-1);
  index.rows = readInts(root->getArray("rows"));
  const llvm::json::Array *inputs = root->getArray("inputs");
  const llvm::json::Array *steps = root->getArray("steps");
  if (!inputs || !steps)
    return indexError(path, "needs \"inputs\" and \"steps\" lists");
  for (auto [i, value] : llvm::enumerate(*inputs)) {
    llvm::Expected<DumpTensor> tensor =
        readTensor(value, path, "input " + std::to_string(i));
    if (!tensor)
      return tensor.takeError();
    index.inputs.push_back(std::move(*tensor));
  }
  for (auto [i, value] : llvm::enumerate(*steps)) {
    const llvm::json::Object *object = value.getAsObject();
    std::string where = "step entry " + std::to_string(i);
    if (!object || !object->getInteger("index") || !object->getString("name") ||
        !object->getArray("outputs"))
      return indexError(path, where + " needs an index, a name and outputs");
    DumpStep step;
    step.index = *object->getInteger("index");
    step.name = object->getString("name")->str();
    if (auto kind = object->getString("kind"))
      step.kind = kind->str();
    if (auto algorithm = object->getString("algorithm"))
      step.algorithm = algorithm->str();
    if (const llvm::json::Array *nodes = object->getArray("onnx_nodes"))
      for (const llvm::json::Value &node : *nodes)
        if (auto name = node.getAsString())
          step.onnxNodes.push_back(name->str());
    for (auto [o, output] : llvm::enumerate(*object->getArray("outputs"))) {
      llvm::Expected<DumpTensor> tensor = readTensor(
          output, path,
          "output " + std::to_string(o) + " of step '" + step.name + "'");
      if (!tensor)
        return tensor.takeError();
      step.outputs.push_back(std::move(*tensor));
    }
    index.steps.push_back(std::move(step));
  }
  return index;
}

llvm::Error writeStepDumpIndex(const std::string &directory,
                               const StepDumpIndex &index) {
  llvm::json::Array inputs, steps;
  for (const DumpTensor &input : index.inputs)
    inputs.push_back(tensorJson(input));
  for (const DumpStep &step : index.steps) {
    llvm::json::Array outputs;
    for (const DumpTensor &output : step.outputs)
      outputs.push_back(tensorJson(output));
    steps.push_back(llvm::json::Object{{"index", step.index},
                                       {"name", step.name},
                                       {"kind", step.kind},
                                       {"onnx_nodes", step.onnxNodes},
                                       {"algorithm", step.algorithm},
                                       {"outputs", std::move(outputs)}});
  }
  llvm::json::Object root{{"format", "kiln-step-dump"},
                          {"version", 1},
                          {"producer", index.producer},
                          {"artifact", index.artifact},
                          {"entry_point", index.entryPoint},
                          {"batch", index.batch},
                          {"rows", index.rows.empty()
                                       ? llvm::json::Value(nullptr)
                                       : llvm::json::Value(index.rows)},
                          {"conv_path", index.convPath},
                          {"mode", index.mode},
                          {"inputs", std::move(inputs)},
                          {"steps", std::move(steps)}};
  std::string path = directory + "/steps.json";
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return llvm::createStringError("cannot write " + path + ": " +
                                   error.message());
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return llvm::Error::success();
}

llvm::Expected<eval::Tensor> readDumpTensor(const std::string &directory,
                                            const DumpTensor &tensor) {
  std::string path = directory + "/" + tensor.file;
  llvm::Expected<eval::NamedTensor> read = eval::readNpy(path);
  if (!read)
    return read.takeError();
  eval::Tensor value = std::move(read->tensor);
  if (std::vector<int64_t>(value.shape().begin(), value.shape().end()) !=
      tensor.shape)
    return llvm::createStringError(
        path + " holds " + value.describe() + ", the index says shape [" +
        llvm::join(llvm::map_range(tensor.shape,
                                   [](int64_t d) { return std::to_string(d); }),
                   ", ") +
        "]");
  eval::DType dtype = *dtypeFromDumpName(tensor.dtype);
  if (value.dtype() == dtype)
    return value;
  // bf16 is stored as float32 (NumPy has no bfloat16): exact both ways.
  if (dtype == eval::DType::BF16 && value.dtype() == eval::DType::F32) {
    eval::Tensor converted(dtype, std::vector<int64_t>(value.shape().begin(),
                                                       value.shape().end()));
    for (int64_t i = 0; i < value.numElements(); ++i)
      converted.setDouble(i, value.getDouble(i));
    return converted;
  }
  return llvm::createStringError(path + " holds " + value.describe() +
                                 ", the index says " + tensor.dtype);
}

} // namespace kiln
