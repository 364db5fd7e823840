#ifndef TESSERA_FUZZ_DRIVER_H
#define TESSERA_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt), for a program that has a main of its own: SwiftPM names the executable's entry
   point, so libFuzzer's main cannot be used. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
