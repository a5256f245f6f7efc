# keel_library(NAME SOURCES... [INCLUDE_DIRS dirs...] [DEPENDS libs...]
#              [COMPILE_OPTIONS opts...] [ARCHIVES archives...])
#
# Declares an optional library a service can link into its image, in the
# library's own lib/NAME/keel-library.cmake (the OS build and every service
# build include them all). ARCHIVES are prebuilt static libraries (a Debian
# package's lib*.a) linked after the library's own archive. In the OS build (cmake/os) it adds the archive
# keel_lib_NAME, compiled once per platform and build type like the OS. In a
# service build it records where that archive is, its include directories
# and the libraries it depends on, which keel_link_libraries() follows.
function(keel_library name)
  cmake_parse_arguments(L "" "" "SOURCES;INCLUDE_DIRS;DEPENDS;COMPILE_OPTIONS;ARCHIVES" ${ARGN})
  if(L_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "keel_library(${name}): unexpected ${L_UNPARSED_ARGUMENTS}")
  endif()
  if(KEEL_OS_BUILD)
    add_library(keel_lib_${name} STATIC ${L_SOURCES})
    target_include_directories(keel_lib_${name} PRIVATE ${L_INCLUDE_DIRS} ${KEEL_INCLUDE_DIRS})
    target_compile_options(keel_lib_${name} PRIVATE ${KEEL_OS_FLAGS} ${L_COMPILE_OPTIONS})
    target_compile_definitions(keel_lib_${name} PRIVATE ${KEEL_PLATFORM_DEFINITION})
    foreach(dep IN LISTS L_DEPENDS)
      if(NOT dep STREQUAL "net")
        target_include_directories(keel_lib_${name} PRIVATE $<TARGET_PROPERTY:keel_lib_${dep},INCLUDE_DIRECTORIES>)
      endif()
    endforeach()
  else()
    set_property(GLOBAL PROPERTY KEEL_LIB_${name}_ARCHIVE ${KEEL_OS_DIR}/libkeel_lib_${name}.a)
    # Kept apart from the OS build's byproducts: a clean must never delete a system file.
    set_property(GLOBAL PROPERTY KEEL_LIB_${name}_PREBUILT ${L_ARCHIVES})
    set_property(GLOBAL PROPERTY KEEL_LIB_${name}_INCLUDE_DIRS ${L_INCLUDE_DIRS})
    set_property(GLOBAL PROPERTY KEEL_LIB_${name}_DEPENDS ${L_DEPENDS})
    set_property(GLOBAL APPEND PROPERTY KEEL_LIBRARIES ${name})
  endif()
endfunction()

# Every library in lib/*/keel-library.cmake (CONFIGURE_DEPENDS: a library
# added later, e.g. by a pull, reconfigures a tree built before it).
file(GLOB KEEL_LIBRARY_FILES CONFIGURE_DEPENDS ${KEEL_ROOT}/lib/*/keel-library.cmake)
foreach(file IN LISTS KEEL_LIBRARY_FILES)
  include(${file})
endforeach()
