#!/usr/bin/env python3
# man-check — every long option a command's --help names (but Placeto's
# own options, which train --help lists from the method) is in that
# command's entry of the man page's COMMANDS section.  Prints what is
# missing; exit status 1 then.
#   python3 tools/man-check.py PLACELAB docs/placelab.1
import re, subprocess, sys
pl, man = sys.argv[1], sys.argv[2]
text = open(man).read()
sec = text.split('\n.SH COMMANDS\n', 1)[1].split('\n.SH ', 1)[0]
def plain(s):
    s = re.sub(r'\\f[BIRP]', '', s)
    return s.replace('\\-', '-')
# top-level .TP entries (those outside .RS/.RE), each with its nested text
ents, cur, depth, head = {}, None, 0, False
for line in sec.split('\n'):
    if line.startswith('.RS'):
        depth += 1
    elif line.startswith('.RE'):
        depth -= 1
    elif line == '.TP' and depth == 0:
        head = True
        continue
    if head:
        head = False
        m = re.match(r'\.B[IR]* +"?([a-z]+)', plain(line))
        if m and m.group(1) != cur:
            cur = m.group(1)
            ents[cur] = ''
    if cur is not None:
        ents[cur] += plain(line) + '\n'
bad = 0
for cmd in ['info','validate','clusters','gen','sim','run','compare','train','export','explore']:
    h = subprocess.run([pl, cmd, '--help'], capture_output=True, text=True).stdout
    h = h.split('Placeto options:')[0]
    opts = sorted(set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', h)) - {'--help'})
    body = ents.get(cmd)
    if body is None:
        print(cmd + ': no entry in the man page'); bad += 1; continue
    miss = [o for o in opts if not re.search(re.escape(o) + r'(?![a-z0-9-])', body)]
    if miss:
        print(cmd + ': not in the man page:', ' '.join(miss)); bad += 1
print('commands:', ' '.join(ents))
sys.exit(1 if bad else 0)
