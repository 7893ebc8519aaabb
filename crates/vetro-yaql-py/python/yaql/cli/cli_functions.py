"""Helpers of the reference's interactive ``yaql`` shell that programs use."""

import json
import os

from yaql.language import utils


def load_data(data_file, context):
    """Load a JSON file as ``$`` of ``context``; report problems on stdout."""
    try:
        with open(os.path.expanduser(data_file)) as f:
            text = f.read()
    except OSError as e:
        print(f"Unable to read data file '{data_file}': {e.strerror}")
        return
    try:
        data = json.loads(text)
    except ValueError as e:
        print('Unable to parse data: ' + str(e))
        return
    context['$'] = utils.convert_input_data(data)
    print(f'Data from file {data_file} loaded into context')
