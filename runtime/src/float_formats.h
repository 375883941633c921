// Host conversions between float and the 16-bit float formats (IEEE half,
// bfloat16), round to nearest even; shared by the runtime's accuracy checks
// and kiln-run's tensor files.
#ifndef KILN_RUNTIME_FLOAT_FORMATS_H
#define KILN_RUNTIME_FLOAT_FORMATS_H

#include <cstdint>

namespace kiln::runtime {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value); // Overflow saturates to +-inf.
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float value);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_FLOAT_FORMATS_H
