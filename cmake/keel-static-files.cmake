# keel_static_files(TARGET FOLDER [GZIP] [BROTLI] [NAME function]): embeds FOLDER, a
# read-only file tree for lib/http's static files, into the service TARGET
# (the image and the Linux-process build alike) and links lib/http:
#
#   keel_service(web service.cpp LIBRARIES http)
#   keel_static_files(web ${CMAKE_CURRENT_SOURCE_DIR}/site GZIP)
#   // service.cpp: http::serve_static(server, "/", http::static_files());
#
# At build time lib/http/static/embed_static.py writes the files' bytes into
# a blob (linked by .incbin, no C++ array to compile) and a C++ table with
# each file's path, modification time and ETag. A FILE.gz beside FILE is its
# gzip variant; GZIP makes one for every other file with `gzip -9 -n` (kept
# when smaller). Likewise FILE.br and BROTLI (`brotli -q 11`, Debian's
# brotli package) for the brotli variant. NAME is the C++ function returning the tree
# (keel::http::static_files by default). Any change in FOLDER (a file
# edited, touched, its time set back, added or removed) rebuilds the table;
# no change rebuilds nothing. docs/http.md, "Static files".
#
# keel_static_files_sources(OUT_VAR ID FOLDER [GZIP] [BROTLI] [NAME function]) does
# the same into a list of sources, for host builds (test/http), made by the
# target ID_static_files (add_dependencies on it).
find_program(KEEL_STATIC_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(KEEL_STATIC_PYTHON python3 REQUIRED)
set(KEEL_STATIC_EMBED ${CMAKE_CURRENT_LIST_DIR}/../lib/http/static/embed_static.py)

function(keel_static_files_sources out_var id folder)
  cmake_parse_arguments(S "GZIP;BROTLI" "NAME" "" ${ARGN})
  if(S_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "keel_static_files(${id}): unexpected ${S_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(folder "${folder}" ABSOLUTE)
  if(NOT IS_DIRECTORY ${folder})
    message(FATAL_ERROR "keel_static_files(${id}): ${folder} is not a folder")
  endif()
  if(NOT S_NAME)
    set(S_NAME keel::http::static_files)
  endif()
  set(gzip_args)
  if(S_GZIP)
    find_program(KEEL_GZIP gzip REQUIRED)
    set(gzip_args --gzip ${KEEL_GZIP})
  endif()
  if(S_BROTLI)
    find_program(KEEL_BROTLI brotli REQUIRED)
    list(APPEND gzip_args --brotli ${KEEL_BROTLI})
  endif()
  string(MAKE_C_IDENTIFIER "keel_static_blob_${id}" symbol)
  # Run at every build (a custom target): the generator itself leaves its
  # outputs untouched unless a file's name, size or modification time
  # changed, either way (ninja's "newer than" would miss a time set back,
  # and Last-Modified must follow it). New files are found by the same run.
  set(blob ${CMAKE_CURRENT_BINARY_DIR}/${id}_static.bin)
  set(table ${CMAKE_CURRENT_BINARY_DIR}/${id}_static.cpp)
  add_custom_target(${id}_static_files
    COMMAND ${KEEL_STATIC_PYTHON} ${KEEL_STATIC_EMBED} --folder ${folder} --name ${S_NAME}
            --symbol ${symbol} --blob ${blob} --table ${table} ${gzip_args}
    BYPRODUCTS ${blob} ${table}
    COMMENT "Static files of ${folder}"
    VERBATIM)
  set(blob_asm ${CMAKE_CURRENT_BINARY_DIR}/${id}_static.S)
  file(WRITE ${blob_asm}
    ".section .rodata.${symbol},\"a\"\n.global ${symbol}\n.type ${symbol}, @object\n"
    ".p2align 4\n${symbol}:\n.incbin \"${blob}\"\n.byte 0\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${blob_asm} PROPERTIES OBJECT_DEPENDS ${blob})
  set(${out_var} ${table} ${blob_asm} PARENT_SCOPE)
endfunction()

function(keel_static_files target folder)
  keel_static_files_sources(sources ${target} ${folder} ${ARGN})
  keel_link_libraries(${target} http)
  keel_service_sources(${target} ${sources})
  # The sources are compiled in TARGET_objects for images, in TARGET for
  # the Linux process (keel-kvm.cmake, keel-linux.cmake).
  if(TARGET ${target}_objects)
    add_dependencies(${target}_objects ${target}_static_files)
  else()
    add_dependencies(${target} ${target}_static_files)
  endif()
endfunction()
