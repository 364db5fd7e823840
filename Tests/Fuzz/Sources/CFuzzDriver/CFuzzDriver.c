/* Declarations only: the driver itself comes from libFuzzer (-sanitize=fuzzer). */
#include "CFuzzDriver.h"
