// The memory-mapped safetensors reader: open, then read every tensor of an accepted file.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_util.hpp"
#include "kvplan/sim/safetensors.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::MemFile file(data, size);
  fuzz::refuse_cleanly([&] {
    const auto f = sim::SafetensorsFile::open(file.path());
    std::uint64_t covered = 0;
    std::vector<float> buf;
    for (const auto& t : f.tensors()) {
      fuzz::check(f.find(t.name) == &t, "find() returns the listed tensor");
      fuzz::check(f.bytes(t).size() == t.end - t.begin, "bytes() spans the offsets");
      covered += t.end - t.begin;
      const std::uint64_t n = t.elements();
      buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(n, 64)));
      f.read_f32(t, 0, buf);
      if (n > buf.size()) f.read_f32(t, n - buf.size(), buf);
      try {  // one past the end must be refused
        std::vector<float> one(1);
        f.read_f32(t, n, one);
        fuzz::check(false, "read_f32 past the end was accepted");
      } catch (const Error&) {
      }
    }
    fuzz::check(covered + 8 <= f.file_bytes(), "tensors fit in the file");
  });
  return 0;
}
