"""Function and parameter naming conventions."""

import re


class Convention:
    def convert_function_name(self, name):
        return name

    def convert_parameter_name(self, name):
        return name


class PythonConvention(Convention):
    def convert_function_name(self, name):
        return name.rstrip('_')

    def convert_parameter_name(self, name):
        return name.rstrip('_')


class CamelCaseConvention(Convention):
    _part = re.compile(r'(?<=[^_])_+([a-z])')

    def _camel(self, name):
        name = name.rstrip('_')
        return self._part.sub(lambda m: m.group(1).upper(), name)

    def convert_function_name(self, name):
        return self._camel(name)

    def convert_parameter_name(self, name):
        return self._camel(name)
