# The firewall's runtime (table loader and classifier) as a library for
# images: keel_service(NAME ... LIBRARIES firewall). The compiler and the
# language stay on the host (tools/keel-fw): an image loads compiled tables.
# The appliance (stateful/, appliance/) sits on the host stack's hooks.
file(GLOB keel_firewall_runtime_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/runtime/*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/stateful/*.cpp ${CMAKE_CURRENT_LIST_DIR}/appliance/*.cpp)
keel_library(firewall
  SOURCES ${keel_firewall_runtime_sources}
  INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/include ${CMAKE_CURRENT_LIST_DIR}
  # The lookup is the hot path (decision 0015: -O3 gave +11% over -O2).
  COMPILE_OPTIONS -O3)
