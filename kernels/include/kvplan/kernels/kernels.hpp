// Umbrella header of the kernels library: quantization, paged KV pool, attention, eviction.
#pragma once

#include "kvplan/kernels/attention.hpp"
#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/eviction.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/kernels/quantize.hpp"
