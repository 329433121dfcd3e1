# NNAccelModelPackage.cmake - compile an ONNX model into a .nnpkg in a build.
#
#   nnaccel_add_model_package(<name>
#     MODEL <file.onnx>
#     OUTPUT <out.nnpkg>              # relative: in the current binary dir
#     [TARGET <name-or-json>]         # a name in NNACCEL_TARGETS_DIR or a path
#     [INPUT_SHAPES <name:1x37> ...]
#     [BUCKETS <spec>]                # INPUT:AXIS[,...]=SIZE,SIZE,...
#     [QUANTIZE <mode> ...]           # e.g. int8, int8,int4-emb, fp16
#     [CALIBRATION <dir>]
#     [PLACEMENT <file.json>]
#     [EXTRA_ARGS <arg> ...])         # passed to nnaccel-compile verbatim
#
# Creates the custom target <name> (built by `all`) whose property
# NNACCEL_PACKAGE_FILE is the absolute package path. The package is rebuilt
# when the model, the target description, the placement file, a file under
# the calibration directory (as globbed at configure time), the compiler or
# any flag changes, and only then: every input file is a DEPENDS, and the
# flags are written to a file that is rewritten only when they differ (so
# this holds also for generators that, unlike Ninja, do not compare command
# lines).
function(nnaccel_add_model_package name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "MODEL;OUTPUT;TARGET;BUCKETS;CALIBRATION;PLACEMENT"
    "INPUT_SHAPES;QUANTIZE;EXTRA_ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "nnaccel_add_model_package(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(_required MODEL OUTPUT)
    if(NOT ARG_${_required})
      message(FATAL_ERROR "nnaccel_add_model_package(${name}): ${_required} is required")
    endif()
  endforeach()
  if(NOT TARGET NNAccel::nnaccel-compile)
    message(FATAL_ERROR "nnaccel_add_model_package(${name}): this NNAccel "
      "install has no compiler (built with NNACCEL_BUILD_COMPILER=OFF)")
  endif()

  get_filename_component(_model "${ARG_MODEL}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_output "${ARG_OUTPUT}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  # A bare name is looked up here rather than by the compiler, whose built-in
  # directory is the source tree it was built from; the JSON file is then an
  # ordinary dependency.
  if(NOT ARG_TARGET)
    set(ARG_TARGET default)
  endif()
  if(ARG_TARGET MATCHES "/" OR ARG_TARGET MATCHES "\\.json$")
    get_filename_component(_target "${ARG_TARGET}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  else()
    set(_target "${NNACCEL_TARGETS_DIR}/${ARG_TARGET}.json")
  endif()
  if(NOT EXISTS "${_target}")
    message(FATAL_ERROR "nnaccel_add_model_package(${name}): no target description ${_target}")
  endif()

  set(_args "${_model}" -o "${_output}" "--target=${_target}")
  set(_depends "${_model}" "${_target}")
  if(ARG_INPUT_SHAPES)
    list(JOIN ARG_INPUT_SHAPES "," _shapes)
    list(APPEND _args "--input-shape=${_shapes}")
  endif()
  if(ARG_BUCKETS)
    list(APPEND _args "--buckets=${ARG_BUCKETS}")
  endif()
  if(ARG_QUANTIZE)
    list(JOIN ARG_QUANTIZE "," _quantize)
    list(APPEND _args "--quantize=${_quantize}")
  endif()
  if(ARG_PLACEMENT)
    get_filename_component(_placement "${ARG_PLACEMENT}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _args "--placement=${_placement}")
    list(APPEND _depends "${_placement}")
  endif()
  if(ARG_CALIBRATION)
    get_filename_component(_calibration "${ARG_CALIBRATION}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _args "--calibration=${_calibration}")
    # A directory's own timestamp does not follow its files' contents; the
    # samples do. Globbed at configure time only: CONFIGURE_DEPENDS would
    # re-glob on every build and leave `ninja -n` unable to look past the
    # regeneration step, so added or removed samples need a re-configure.
    file(GLOB_RECURSE _samples "${_calibration}/*")
    list(APPEND _depends ${_samples})
  endif()
  list(APPEND _args ${ARG_EXTRA_ARGS})

  set(_flags "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${name}.nnaccel-flags")
  list(JOIN _args "\n" _flags_text)
  file(CONFIGURE OUTPUT "${_flags}" CONTENT "${_flags_text}\n" @ONLY)

  add_custom_command(
    OUTPUT "${_output}"
    COMMAND NNAccel::nnaccel-compile ${_args}
    DEPENDS ${_depends} "${_flags}" NNAccel::nnaccel-compile
    COMMENT "Compiling ${ARG_MODEL} into ${ARG_OUTPUT}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${_output}")
  set_target_properties(${name} PROPERTIES NNACCEL_PACKAGE_FILE "${_output}")
endfunction()
