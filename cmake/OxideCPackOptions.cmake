# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE): the Debian package installs into
# /opt/oxide; the tarball holds bin/, include/ and lib/ under its top directory, to unpack into
# any prefix.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/opt/oxide")
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
endif()
