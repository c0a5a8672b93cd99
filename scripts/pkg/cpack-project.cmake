# Read by cpack (CPACK_PROJECT_CONFIG_FILE, top-level CMakeLists.txt) before it packages.
# A build with the CUDA kernels links NVIDIA's libcudart.so from /usr/local/cuda, which no Debian
# package provides: dpkg-shlibdeps would leave it out of Depends (CPack runs it with
# --ignore-missing-info) and the package would not start on a machine without that toolkit.
if(CPACK_KVPLAN_HAS_CUDA)
  message(FATAL_ERROR
    "kvplan: this build has the CUDA kernels (libcudart is not a Debian package): configure the "
    "package build with -DKVPLAN_CUDA=OFF (docs/install.md)")
endif()
