// SplitMix64: a small, fully specified, seedable generator, for the
// runtime's random check operands and kiln-run's generated inputs (values do
// not depend on the C++ library's distributions).
#ifndef KILN_RUNTIME_SPLITMIX64_H
#define KILN_RUNTIME_SPLITMIX64_H

#include <cstdint>

namespace kiln::runtime {

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_SPLITMIX64_H
