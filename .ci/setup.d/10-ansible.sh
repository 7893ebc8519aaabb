# Ansible for the spec part's real playbook test (tests/ansible.rs in vetro-spec).
[ -x "$VETRO_CI_VENV/bin/ansible-playbook" ] || ci_pip ansible-core
export VETRO_ANSIBLE_PLAYBOOK="$VETRO_CI_VENV/bin/ansible-playbook"
