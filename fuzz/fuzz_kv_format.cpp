// KV-format spec parser (--kv-dtype, deploy files): parse, round-trip, and cost an accepted format.
#include <cstdint>

#include "fuzz_util.hpp"
#include "kvplan/kv_format.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto spec = fuzz::as_text(data, size);
  fuzz::refuse_cleanly([&] {
    const KvFormat f = parse_kv_format(spec);
    // The canonical string parses back to the same format.
    fuzz::check(parse_kv_format(to_string(f)) == f, "to_string round trip");
    fuzz::check(nominal_bytes_per_element(f) > 0, "bytes per element > 0");
    for (std::uint32_t width : {1u, 64u, 128u, 576u}) {
      for (std::uint32_t block : {1u, 16u, 17u}) {
        for (auto role : {StreamRole::key, StreamRole::value, StreamRole::latent}) {
          try {
            validate_stream(f, role, width, block, "fuzz");
          } catch (const Error&) {
            continue;  // e.g. kivi group not dividing the width
          }
          std::uint64_t prev = 0;
          for (std::uint64_t tokens : {0ull, 1ull, 1000ull, 1ull << 20, 1ull << 40}) {
            const auto b = stream_bytes(f, role, width, tokens, block);
            fuzz::check(b >= prev, "stream_bytes grows with tokens");
            prev = b;
          }
        }
      }
    }
  });
  return 0;
}
