// Parsers for NumPy .npy and onnx.TensorProto bytes (a hand-written protobuf
// wire reader), and an .npy writer.
#include "tensor_files.h"

#include <cstring>
#include <fstream>

namespace kiln::run {

namespace {

bool fail(std::string *error, const std::string &message) {
  *error = message;
  return false;
}

/// Bytes of a dense tensor; false on a negative dim or overflow.
bool denseBytes(const std::vector<int64_t> &dims, kiln_dtype_t dtype,
                size_t *bytes) {
  size_t total = kiln_dtype_size(dtype);
  for (int64_t dim : dims) {
    if (dim < 0 || (dim > 0 && total > SIZE_MAX / static_cast<size_t>(dim)))
      return false;
    total *= static_cast<size_t>(dim);
  }
  *bytes = total;
  return true;
}

kiln_dtype_t npyDType(const std::string &descr) {
  static const struct {
    const char *code;
    kiln_dtype_t dtype;
  } table[] = {
      {"b1", KILN_DTYPE_BOOL}, {"i1", KILN_DTYPE_I8},  {"i2", KILN_DTYPE_I16},
      {"i4", KILN_DTYPE_I32},  {"i8", KILN_DTYPE_I64}, {"u1", KILN_DTYPE_U8},
      {"u2", KILN_DTYPE_U16},  {"u4", KILN_DTYPE_U32}, {"u8", KILN_DTYPE_U64},
      {"f2", KILN_DTYPE_F16},  {"f4", KILN_DTYPE_F32}, {"f8", KILN_DTYPE_F64}};
  if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '|'))
    return KILN_DTYPE_UNSPECIFIED;
  for (const auto &entry : table)
    if (descr.compare(1, 2, entry.code) == 0)
      return entry.dtype;
  return KILN_DTYPE_UNSPECIFIED;
}

/// The text after "'key':" in an .npy header dict, or npos.
size_t findKey(const std::string &header, const char *key) {
  size_t at = header.find(std::string("'") + key + "'");
  if (at == std::string::npos)
    return at;
  at = header.find(':', at);
  return at == std::string::npos ? at : at + 1;
}

// --- Protobuf wire format
// -----------------------------------------------------
struct WireReader {
  const uint8_t *at, *end;
  bool varint(uint64_t *value) {
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= end)
        return false;
      uint8_t byte = *at++;
      *value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool bytes(size_t count, const uint8_t **out) {
    if (count > size_t(end - at))
      return false;
    *out = at;
    at += count;
    return true;
  }
};

/// Appends the values of a repeated varint field (packed or not), each
/// truncated to |width| little-endian bytes (two's complement for negatives).
bool readVarints(WireReader &reader, int wireType, size_t width,
                 std::vector<uint8_t> *out) {
  uint64_t value = 0;
  auto append = [&] {
    out->insert(out->end(), reinterpret_cast<uint8_t *>(&value),
                reinterpret_cast<uint8_t *>(&value) + width);
  };
  if (wireType == 0) {
    if (!reader.varint(&value))
      return false;
    append();
    return true;
  }
  uint64_t length = 0;
  const uint8_t *data = nullptr;
  if (wireType != 2 || !reader.varint(&length) || !reader.bytes(length, &data))
    return false;
  WireReader packed{data, data + length};
  while (packed.at < packed.end) {
    if (!packed.varint(&value))
      return false;
    append();
  }
  return true;
}

/// Appends the values of a repeated fixed32 (|width| 4) or fixed64 field.
bool readFixed(WireReader &reader, int wireType, size_t width,
               std::vector<uint8_t> *out) {
  const uint8_t *data;
  if (wireType == (width == 4 ? 5 : 1)) {
    if (!reader.bytes(width, &data))
      return false;
    out->insert(out->end(), data, data + width);
    return true;
  }
  uint64_t length;
  if (wireType != 2 || !reader.varint(&length) || length % width != 0 ||
      !reader.bytes(length, &data))
    return false;
  out->insert(out->end(), data, data + length);
  return true;
}

kiln_dtype_t onnxDType(uint64_t type) {
  switch (type) {
  case 1:
    return KILN_DTYPE_F32;
  case 2:
    return KILN_DTYPE_U8;
  case 3:
    return KILN_DTYPE_I8;
  case 4:
    return KILN_DTYPE_U16;
  case 5:
    return KILN_DTYPE_I16;
  case 6:
    return KILN_DTYPE_I32;
  case 7:
    return KILN_DTYPE_I64;
  case 9:
    return KILN_DTYPE_BOOL;
  case 10:
    return KILN_DTYPE_F16;
  case 11:
    return KILN_DTYPE_F64;
  case 12:
    return KILN_DTYPE_U32;
  case 13:
    return KILN_DTYPE_U64;
  case 16:
    return KILN_DTYPE_BF16;
  default:
    return KILN_DTYPE_UNSPECIFIED;
  }
}

} // namespace

bool parseNpy(const uint8_t *data, size_t size, HostTensor *out,
              std::string *error) {
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0)
    return fail(error, "not an .npy file");
  uint8_t major = data[6];
  size_t headerLength, start;
  if (major == 1) {
    headerLength = data[8] | (size_t(data[9]) << 8);
    start = 10;
  } else if ((major == 2 || major == 3) && size >= 12) {
    headerLength = data[8] | (size_t(data[9]) << 8) | (size_t(data[10]) << 16) |
                   (size_t(data[11]) << 24);
    start = 12;
  } else {
    return fail(error, "unsupported .npy version " + std::to_string(major));
  }
  if (headerLength > size - start)
    return fail(error, "truncated .npy header");
  std::string header(reinterpret_cast<const char *>(data) + start,
                     headerLength);
  size_t descr = findKey(header, "descr"),
         fortran = findKey(header, "fortran_order"),
         shape = findKey(header, "shape");
  if (descr == std::string::npos || fortran == std::string::npos ||
      shape == std::string::npos)
    return fail(error, "malformed .npy header");
  size_t quote = header.find('\'', descr), close = header.find('\'', quote + 1);
  if (quote == std::string::npos || close == std::string::npos)
    return fail(error, "malformed .npy descr");
  std::string code = header.substr(quote + 1, close - quote - 1);
  out->dtype = npyDType(code);
  if (out->dtype == KILN_DTYPE_UNSPECIFIED)
    return fail(error, "unsupported .npy dtype '" + code +
                           "' (little-endian numbers only)");
  size_t fortranValue = header.find_first_not_of(' ', fortran);
  if (fortranValue == std::string::npos)
    return fail(error, "malformed .npy header (fortran_order has no value)");
  if (header.compare(fortranValue, 4, "True") == 0)
    return fail(error, "Fortran-order .npy arrays are not supported");
  size_t open = header.find('(', shape), end = header.find(')', shape);
  if (open == std::string::npos || end == std::string::npos || end < open)
    return fail(error, "malformed .npy shape");
  out->dims.clear();
  std::string dims = header.substr(open + 1, end - open - 1);
  for (size_t at = 0; at < dims.size();) {
    size_t comma = dims.find(',', at);
    std::string item = dims.substr(
        at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item.find_first_not_of(' ') != std::string::npos) {
      char *stop = nullptr;
      long long dim = std::strtoll(item.c_str(), &stop, 10);
      if (dim < 0 || (*stop && *stop != ' '))
        return fail(error, "malformed .npy shape '" + dims + "'");
      out->dims.push_back(dim);
    }
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  size_t bytes = 0;
  if (!denseBytes(out->dims, out->dtype, &bytes) ||
      bytes != size - start - headerLength)
    return fail(error, "the .npy data has " +
                           std::to_string(size - start - headerLength) +
                           " bytes; " + kiln_dtype_name(out->dtype) + " " +
                           shapeText(out->dims) + " needs " +
                           std::to_string(bytes));
  out->data.assign(data + start + headerLength, data + size);
  return true;
}

bool parseTensorProto(const uint8_t *data, size_t size, HostTensor *out,
                      std::string *error) {
  WireReader reader{data, data + size};
  uint64_t dataType = 0;
  std::vector<uint8_t> dims, raw, floats, int32s, int64s, doubles, uint64s;
  bool hasRaw = false;
  out->name.clear();
  while (reader.at < reader.end) {
    uint64_t key;
    if (!reader.varint(&key))
      return fail(error, "malformed TensorProto (bad field key)");
    int field = int(key >> 3), wireType = int(key & 7);
    bool ok = true;
    const uint8_t *bytes = nullptr;
    uint64_t length = 0, ignored = 0;
    switch (field) {
    case 1:
      ok = readVarints(reader, wireType, 8, &dims);
      break;
    case 2:
      ok = wireType == 0 && reader.varint(&dataType);
      break;
    case 4:
      ok = readFixed(reader, wireType, 4, &floats);
      break;
    case 5:
      ok = readVarints(reader, wireType, 4, &int32s);
      break;
    case 7:
      ok = readVarints(reader, wireType, 8, &int64s);
      break;
    case 10:
      ok = readFixed(reader, wireType, 8, &doubles);
      break;
    case 11:
      ok = readVarints(reader, wireType, 8, &uint64s);
      break;
    case 8:
    case 9:
      ok = wireType == 2 && reader.varint(&length) &&
           reader.bytes(length, &bytes);
      if (ok && field == 8)
        out->name.assign(reinterpret_cast<const char *>(bytes), length);
      if (ok && field == 9) {
        raw.assign(bytes, bytes + length);
        hasRaw = true;
      }
      break;
    case 14:
      ok = wireType == 0 && reader.varint(&ignored);
      if (ok && ignored == 1)
        return fail(error, "TensorProto with external data is not supported");
      break;
    default: // Skip any other field by its wire type.
      if (wireType == 0)
        ok = reader.varint(&ignored);
      else if (wireType == 1 || wireType == 5)
        ok = reader.bytes(wireType == 1 ? 8 : 4, &bytes);
      else if (wireType == 2)
        ok = reader.varint(&length) && reader.bytes(length, &bytes);
      else
        ok = false;
    }
    if (!ok)
      return fail(error, "malformed TensorProto (field " +
                             std::to_string(field) + ")");
  }
  out->dtype = onnxDType(dataType);
  if (out->dtype == KILN_DTYPE_UNSPECIFIED)
    return fail(error, "unsupported TensorProto data_type " +
                           std::to_string(dataType));
  out->dims.resize(dims.size() / 8);
  if (!dims.empty()) // A scalar has none (and memcpy takes no NULL).
    std::memcpy(out->dims.data(), dims.data(), dims.size());
  size_t bytes = 0, width = kiln_dtype_size(out->dtype);
  if (!denseBytes(out->dims, out->dtype, &bytes))
    return fail(error, "invalid TensorProto dims " + shapeText(out->dims));
  size_t count = bytes / width;
  if (hasRaw) {
    out->data = std::move(raw);
  } else {
    // Typed fields: each value narrowed to the element width (little-endian).
    const std::vector<uint8_t> *source = &int32s;
    size_t sourceWidth = 4;
    switch (out->dtype) {
    case KILN_DTYPE_F32:
      source = &floats;
      break;
    case KILN_DTYPE_F64:
      source = &doubles;
      sourceWidth = 8;
      break;
    case KILN_DTYPE_I64:
      source = &int64s;
      sourceWidth = 8;
      break;
    case KILN_DTYPE_U32:
    case KILN_DTYPE_U64:
      source = &uint64s;
      sourceWidth = 8;
      break;
    default:
      break;
    }
    // Compared by division: count * sourceWidth can wrap for a narrow type
    // (dims of 8^21 u8 values, four bytes each in int32_data) and match an
    // empty field.
    if (source->size() % sourceWidth != 0 ||
        source->size() / sourceWidth != count)
      return fail(error, "TensorProto has " +
                             std::to_string(source->size() / sourceWidth) +
                             " values for dims " + shapeText(out->dims));
    out->data.resize(bytes);
    for (size_t i = 0; i < count; ++i)
      std::memcpy(&out->data[i * width], &(*source)[i * sourceWidth], width);
  }
  if (out->data.size() != bytes)
    return fail(error,
                "TensorProto raw_data has " + std::to_string(out->data.size()) +
                    " bytes; " + kiln_dtype_name(out->dtype) + " " +
                    shapeText(out->dims) + " needs " + std::to_string(bytes));
  return true;
}

bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string *error) {
  HostTensor written = tensor;
  if (tensor.dtype == KILN_DTYPE_BF16 &&
      !convertTensor(tensor, KILN_DTYPE_F32, &written, error))
    return false;
  static const char *codes[] = {"",    "|b1", "|i1", "<i2", "<i4",
                                "<i8", "|u1", "<u2", "<u4", "<u8",
                                "<f2", "",    "<f4", "<f8"};
  std::string shape = "(";
  for (size_t i = 0; i < written.dims.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(written.dims[i]);
  shape += written.dims.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + codes[written.dtype] +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  uint16_t length = uint16_t(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  file.write(reinterpret_cast<const char *>(&length), 2);
  file << header;
  file.write(reinterpret_cast<const char *>(written.data.data()),
             std::streamsize(written.data.size()));
  if (!file)
    return fail(error, "cannot write '" + path + "'");
  return true;
}

} // namespace kiln::run
