// Reading and writing NumPy .npy files (format 1.0-3.0, little-endian, C
// order). bfloat16, which NumPy lacks, is written as float32 (exactly).
#include "kiln/Evaluator/TensorIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace kiln::eval {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::optional<DType> dtypeFromDescr(llvm::StringRef descr) {
  if (descr.size() < 2)
    return std::nullopt;
  char order = descr.front();
  llvm::StringRef code = descr.drop_front();
  if (order == '>' && code != "i1" && code != "u1" && code != "b1")
    return std::nullopt; // Big-endian data is not supported.
  return llvm::StringSwitch<std::optional<DType>>(code)
      .Case("b1", DType::Bool)
      .Case("i1", DType::I8)
      .Case("i2", DType::I16)
      .Case("i4", DType::I32)
      .Case("i8", DType::I64)
      .Case("u1", DType::U8)
      .Case("u2", DType::U16)
      .Case("u4", DType::U32)
      .Case("u8", DType::U64)
      .Case("f2", DType::F16)
      .Case("f4", DType::F32)
      .Case("f8", DType::F64)
      .Default(std::nullopt);
}

const char *descrOf(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::U8:
    return "|u1";
  case DType::U16:
    return "<u2";
  case DType::U32:
    return "<u4";
  case DType::U64:
    return "<u8";
  case DType::F16:
    return "<f2";
  case DType::BF16: // Written as float32.
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  }
  return "";
}

/// The value of 'key' in the header dict: the text after "'key':" up to the
/// matching terminator.
std::optional<llvm::StringRef> headerField(llvm::StringRef header,
                                           llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

} // namespace

llvm::Expected<NamedTensor> readNpy(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read %s: %s",
                                   path.c_str(),
                                   buffer.getError().message().c_str());
  llvm::StringRef data = (*buffer)->getBuffer();
  auto bad = [&](const char *why) {
    return llvm::createStringError("%s is not a supported .npy file: %s",
                                   path.c_str(), why);
  };
  if (data.size() < 10 || !data.starts_with(llvm::StringRef(kMagic, 6)))
    return bad("no NUMPY magic");
  uint8_t major = static_cast<uint8_t>(data[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(data[8]) | (size_t(uint8_t(data[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return bad("truncated header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(uint8_t(data[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return bad("unknown format version");
  }
  if (data.size() < headerStart + headerLength)
    return bad("truncated header");
  llvm::StringRef header = data.substr(headerStart, headerLength);

  std::optional<llvm::StringRef> descr = headerField(header, "descr");
  std::optional<llvm::StringRef> fortran = headerField(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = headerField(header, "shape");
  if (!descr || !fortran || !shapeText || !descr->starts_with("'"))
    return bad("malformed header");
  std::optional<DType> dtype = dtypeFromDescr(
      descr->drop_front().take_until([](char c) { return c == '\''; }));
  if (!dtype)
    return bad("unsupported dtype (descr)");
  if (fortran->starts_with("True"))
    return bad("Fortran order");
  if (!shapeText->consume_front("("))
    return bad("malformed shape");
  std::vector<int64_t> shape;
  llvm::StringRef dims = shapeText->take_until([](char c) { return c == ')'; });
  while (!(dims = dims.ltrim(" ,")).empty()) {
    llvm::StringRef dim = dims.take_until([](char c) { return c == ','; });
    dims = dims.drop_front(dim.size());
    uint64_t value;
    if (dim.trim().getAsInteger(10, value))
      return bad("malformed shape");
    shape.push_back(static_cast<int64_t>(value));
  }
  llvm::StringRef payload = data.drop_front(headerStart + headerLength);
  llvm::Expected<Tensor> tensor =
      Tensor::fromBytes(*dtype, std::move(shape),
                        llvm::ArrayRef<char>(payload.data(), payload.size()));
  if (!tensor)
    return llvm::createStringError(path + ": " +
                                   llvm::toString(tensor.takeError()));
  return NamedTensor{"", std::move(*tensor)};
}

llvm::Error writeNpy(const std::string &path, const Tensor &tensor) {
  std::string shape = "(";
  for (int64_t dim : tensor.shape())
    shape += std::to_string(dim) + ", ";
  if (tensor.rank() > 1)
    shape.resize(shape.size() - 2);
  else if (tensor.rank() == 1)
    shape.resize(shape.size() - 1); // "(3,)"
  shape += ")";
  std::string header = std::string("{'descr': '") + descrOf(tensor.dtype()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::vector<char> bytes;
  if (tensor.dtype() == DType::BF16) {
    Tensor wide(DType::F32, std::vector<int64_t>(tensor.shape().begin(),
                                                 tensor.shape().end()));
    wide.floats() = tensor.floats();
    bytes = wide.toBytes();
  } else {
    bytes = tensor.toBytes();
  }

  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write %s: %s", path.c_str(),
                                   error.message().c_str());
  os.write(kMagic, 6);
  os << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>((header.size() >> 8) & 0xff);
  os << header;
  os.write(bytes.data(), bytes.size());
  return llvm::Error::success();
}

} // namespace kiln::eval
