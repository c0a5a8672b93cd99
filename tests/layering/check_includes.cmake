# Layering check: no source of a library includes another library's private headers.
#
#   cmake -DROOT=<source tree> -P tests/layering/check_includes.cmake
#
# Run by the ctest Layering.PrivateIncludes on the repository, and by Layering.Detects* on the
# small trees in tests/layering/fixtures/, which hold one violation each: with -DEXPECT=<regex>
# the script succeeds only when it finds a problem matching the regex, so the check is seen to
# fail for the right reason. Exits non-zero, listing every problem, when:
#  - a quoted #include names a header of the source tree that the including folder may not see:
#    it is found neither next to the including file (inside that folder) nor under one of the
#    include roots the table below gives the folder (e.g. a serving source including
#    "report_format.hpp", private to replay/src, or "kvplan/kernels/kernels.hpp");
#  - a relative #include ("../x/src/a.hpp") leaves the including folder;
#  - a C++ or CUDA file of core/ kernels/ simulator/ cli/ gui/ lies in no folder of the table (a
#    new library folder must say what it may see).
# An include found nowhere in the source tree (a system header, the generated kvplan/version.hpp)
# is not this check's business: the compiler resolves it.
#
# The table: a folder, then the include roots its files may see (besides their own folder). It
# follows the targets' link lines (core/, kernels/, simulator/*/CMakeLists.txt), PUBLIC headers
# (include/) seeing only what their library's PUBLIC dependencies export. core/json (the internal
# JSON reader, kvplan_core_json) is seen by core's sources and the serving sources only.
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_includes.cmake: pass -DROOT=<source tree>")
endif()
get_filename_component(ROOT "${ROOT}" REALPATH)

set(_core core/include)
set(_kernels kernels/include core/include)
set(_serving simulator/serving/include core/include)
set(_refmodels simulator/refmodels/include kernels/include core/include)
set(_replay simulator/replay/include simulator/refmodels/include kernels/include core/include)
set(_apps simulator/serving/include simulator/replay/include simulator/refmodels/include
          kernels/include core/include)

# layer(folder roots...): `folder` may see `roots` (and its own files).
set(KVPLAN_LAYERS "")
set(_folders "")
macro(layer folder)
  string(REPLACE ";" "," _roots "${ARGN}")
  list(APPEND KVPLAN_LAYERS "${folder}|${_roots}")
  list(APPEND _folders ${folder})
endmacro()
layer(core/include ${_core})
layer(core/src ${_core} core/json)
layer(core/json ${_core} core/json)
layer(kernels/include ${_kernels})
layer(kernels/host ${_kernels})
layer(kernels/src ${_kernels})
layer(kernels/cuda ${_kernels})
layer(simulator/serving/include ${_serving})
layer(simulator/serving/src ${_serving} core/json)
layer(simulator/refmodels/include ${_refmodels})
layer(simulator/refmodels/src ${_refmodels})
layer(simulator/replay/include ${_replay})
layer(simulator/replay/src ${_replay})
layer(cli ${_apps})
layer(gui/src ${_apps})

set(_problems "")
set(_checked 0)

# Every C++/CUDA file of the library folders is covered by the table.
file(GLOB_RECURSE _all RELATIVE ${ROOT} ${ROOT}/core/* ${ROOT}/kernels/* ${ROOT}/simulator/*
     ${ROOT}/cli/* ${ROOT}/gui/*)
foreach(f IN LISTS _all)
  if(NOT f MATCHES "\\.(cpp|hpp|h|cu|cuh)$")
    continue()
  endif()
  set(_covered FALSE)
  foreach(folder IN LISTS _folders)
    string(FIND "${f}" "${folder}/" pos)
    if(pos EQUAL 0)
      set(_covered TRUE)
      break()
    endif()
  endforeach()
  if(NOT _covered)
    list(APPEND _problems "${f}: in no folder of tests/layering/check_includes.cmake's table")
  endif()
endforeach()

foreach(entry IN LISTS KVPLAN_LAYERS)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 folder)
  list(GET parts 1 roots)
  string(REPLACE "," ";" sees "${roots}")
  string(REPLACE "," ", " sees_text "${roots}")
  if(NOT IS_DIRECTORY ${ROOT}/${folder})
    continue()
  endif()
  file(GLOB_RECURSE _files ${ROOT}/${folder}/*.cpp ${ROOT}/${folder}/*.hpp ${ROOT}/${folder}/*.h
       ${ROOT}/${folder}/*.cu ${ROOT}/${folder}/*.cuh)
  list(SORT _files)
  foreach(file IN LISTS _files)
    file(RELATIVE_PATH rel ${ROOT} ${file})
    get_filename_component(dir ${file} DIRECTORY)
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${line}")
      math(EXPR _checked "${_checked} + 1")
      # Next to the including file: must stay inside its folder.
      if(EXISTS ${dir}/${inc})
        get_filename_component(target ${dir}/${inc} REALPATH)
        file(RELATIVE_PATH to ${ROOT} ${target})
        string(FIND "${target}" "${ROOT}/${folder}/" pos)
        if(NOT pos EQUAL 0)
          list(APPEND _problems "${rel}: #include \"${inc}\" is ${to}, outside ${folder}/")
        endif()
        continue()
      endif()
      # Under an include root the folder may see.
      set(_seen FALSE)
      foreach(r IN LISTS sees)
        if(EXISTS ${ROOT}/${r}/${inc})
          set(_seen TRUE)
          break()
        endif()
      endforeach()
      if(_seen)
        continue()
      endif()
      # Anywhere else in the tree: a header this folder may not see.
      foreach(other IN LISTS _folders)
        if(EXISTS ${ROOT}/${other}/${inc} AND NOT IS_DIRECTORY ${ROOT}/${other}/${inc})
          string(CONCAT msg "${rel}: #include \"${inc}\" is ${other}/${inc}, which ${folder}/ "
                 "may not see (it sees ${sees_text})")
          list(APPEND _problems "${msg}")
          break()
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

# -DEXPECT=<regex> (the fixtures): succeed only when the scan fails with a problem matching it.
if(DEFINED EXPECT)
  string(REPLACE ";" "\n  " text "${_problems}")
  if(NOT _problems)
    message(FATAL_ERROR "Layering: expected a problem matching '${EXPECT}', found none")
  elseif(NOT text MATCHES "${EXPECT}")
    message(FATAL_ERROR "Layering: expected a problem matching '${EXPECT}', found:\n  ${text}")
  endif()
  message(STATUS "Layering: failed as expected:\n  ${text}")
  return()
endif()

if(_problems)
  list(LENGTH _problems n)
  string(REPLACE ";" "\n  " text "${_problems}")
  message(FATAL_ERROR "Layering: ${n} problem(s):\n  ${text}")
endif()
message(STATUS "Layering: ${_checked} quoted #include lines checked, none private to another "
               "library")
