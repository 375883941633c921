// Reads a kernel's registers and stack frame from a cubin's .nv.info.
#include "kiln/Target/CUDA/CubinResources.h"

#include <cstring>
#include <vector>

namespace kiln {
namespace {

// ELF64 section header fields (offsets within a header) and .nv.info's
// record formats and attributes (as cuobjdump names them).
constexpr size_t kHeaderSize = 64;
constexpr unsigned char kElfMagic[] = {0x7f, 'E', 'L', 'F'};
constexpr uint32_t kSymtab = 2, kNoBits = 8; // SHT_SYMTAB, SHT_NOBITS
constexpr size_t kSymbolSize = 24;
constexpr uint8_t kFormatSizedValue = 0x04;  // EIFMT_SVAL: u16 size, payload.
constexpr uint8_t kAttrRegisterCount = 0x2f; // EIATTR_REGCOUNT
constexpr uint8_t kAttrFrameSize = 0x11;     // EIATTR_FRAME_SIZE

/// Little-endian reads that fail outside the buffer.
struct Bytes {
  const uint8_t *data;
  size_t size;
  bool has(uint64_t offset, uint64_t length) const {
    return offset <= size && length <= size - offset;
  }
  template <typename T> std::optional<T> read(uint64_t offset) const {
    if (!has(offset, sizeof(T)))
      return std::nullopt;
    T value;
    std::memcpy(&value, data + offset, sizeof(T));
    return value;
  }
  /// The NUL-terminated string at |offset| within [begin, begin + length).
  std::optional<std::string> string(uint64_t begin, uint64_t length,
                                    uint64_t offset) const {
    if (!has(begin, length) || offset >= length)
      return std::nullopt;
    const uint8_t *start = data + begin + offset;
    const void *end = std::memchr(start, 0, length - offset);
    if (!end)
      return std::nullopt;
    return std::string(reinterpret_cast<const char *>(start),
                       static_cast<const uint8_t *>(end) - start);
  }
};

struct SectionHeader {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0;
};

} // namespace

std::optional<KernelResources> cubinResources(const uint8_t *data, size_t size,
                                              const std::string &symbol) {
  Bytes bytes{data, size};
  if (!bytes.has(0, kHeaderSize) ||
      std::memcmp(data, kElfMagic, sizeof(kElfMagic)) != 0 ||
      data[4] != 2 /* ELFCLASS64 */ || data[5] != 1 /* little-endian */)
    return std::nullopt;
  std::optional<uint64_t> tableOffset = bytes.read<uint64_t>(0x28);
  std::optional<uint16_t> entrySize = bytes.read<uint16_t>(0x3a),
                          entries = bytes.read<uint16_t>(0x3c),
                          namesIndex = bytes.read<uint16_t>(0x3e);
  if (!tableOffset || !entrySize || *entrySize < kHeaderSize || !entries ||
      !namesIndex || *namesIndex >= *entries ||
      !bytes.has(*tableOffset, uint64_t(*entrySize) * *entries))
    return std::nullopt;
  std::vector<SectionHeader> sections(*entries);
  for (uint16_t i = 0; i < *entries; ++i) {
    uint64_t at = *tableOffset + uint64_t(i) * *entrySize;
    SectionHeader &section = sections[i];
    section.name = *bytes.read<uint32_t>(at);
    section.type = *bytes.read<uint32_t>(at + 4);
    section.offset = *bytes.read<uint64_t>(at + 24);
    section.size = *bytes.read<uint64_t>(at + 32);
    section.link = *bytes.read<uint32_t>(at + 40);
    if (!bytes.has(section.offset, section.size) && section.type != kNoBits)
      return std::nullopt;
  }
  const SectionHeader &names = sections[*namesIndex];
  const SectionHeader *info = nullptr, *symbols = nullptr;
  for (const SectionHeader &section : sections) {
    std::optional<std::string> name =
        bytes.string(names.offset, names.size, section.name);
    if (name && *name == ".nv.info")
      info = &section;
    if (section.type == kSymtab)
      symbols = &section;
  }
  if (!info || !symbols || symbols->link >= sections.size())
    return std::nullopt;
  // The kernel's symbol index.
  const SectionHeader &symbolNames = sections[symbols->link];
  std::optional<uint32_t> index;
  for (uint64_t i = 0; i < symbols->size / kSymbolSize && !index; ++i) {
    std::optional<uint32_t> name =
        bytes.read<uint32_t>(symbols->offset + i * kSymbolSize);
    std::optional<std::string> text =
        name ? bytes.string(symbolNames.offset, symbolNames.size, *name)
             : std::nullopt;
    if (text && *text == symbol)
      index = uint32_t(i);
  }
  if (!index)
    return std::nullopt;
  // Records: u8 format, u8 attribute, u16 value or size; a sized value's
  // payload follows. REGCOUNT and FRAME_SIZE are (symbol index, value).
  KernelResources resources;
  bool found = false;
  for (uint64_t at = info->offset; at + 4 <= info->offset + info->size;) {
    uint8_t format = data[at], attribute = data[at + 1];
    uint16_t value = *bytes.read<uint16_t>(at + 2);
    uint64_t next = at + 4 + (format == kFormatSizedValue ? value : 0);
    if (next > info->offset + info->size)
      break;
    if (format == kFormatSizedValue && value == 8 &&
        *bytes.read<uint32_t>(at + 4) == *index) {
      uint32_t payload = *bytes.read<uint32_t>(at + 8);
      if (attribute == kAttrRegisterCount) {
        resources.registers = payload;
        found = true;
      } else if (attribute == kAttrFrameSize) {
        resources.frameBytes = payload;
      }
    }
    at = next;
  }
  if (!found)
    return std::nullopt;
  return resources;
}

} // namespace kiln
