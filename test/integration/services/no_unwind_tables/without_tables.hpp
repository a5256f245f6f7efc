#pragma once

void throw_from_a_library();
void caller_without_tables();
