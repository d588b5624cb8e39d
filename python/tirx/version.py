"""The package version: CMake's project(VERSION) in the top-level
CMakeLists.txt is the source; test/Tools/version.test checks this agrees."""
__version__ = "0.2.0"
