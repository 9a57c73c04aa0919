#!/usr/bin/env python3
# Writes the seed corpus of the fuzz targets (seeds/amber, seeds/spirv, seeds/png).
# Usage: fuzz/make_seeds.py AMBER_CORPUS_DIR   (e.g. ../shared/amber), from the repository root.
# amber: 125 small corpus scripts that read no files (SPIR-V assembly, GLSL and VkScript ones);
# spirv: the repository's .spv files and up to 80 SPIRV-ASM blocks of the corpus assembled by
# spirv-as; png: tiny PNGs of every colour type and bit depth, and one golden.
import os, re, subprocess, zlib, struct, hashlib, shutil, glob, sys, tempfile
root=sys.argv[1]
repo=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out=os.path.join(repo,'fuzz','seeds')
tmp=tempfile.mkdtemp()
# --- amber seeds: small scripts that need no FILE data
amb=[]
for dp,dn,fn in os.walk(root):
    for f in fn:
        if f.endswith('.amber') or f.endswith('.vkscript'):
            p=os.path.join(dp,f)
            t=open(p,'rb').read()
            if len(t) > 6000 or b' FILE ' in t:
                continue
            amb.append((len(t),p,t))
amb.sort()
# pick a spread: every kind (spirv-asm, glsl, vkscript) and sizes
picked=[]
import random
random.seed(7)
sa=[a for a in amb if b'SPIRV-ASM' in a[2]]
gl=[a for a in amb if b'GLSL' in a[2] and a[1].endswith('.amber')]
vk=[a for a in amb if a[1].endswith('.vkscript')]
for group,n in ((sa,60),(gl,40),(vk,25)):
    g=group[:]
    random.shuffle(g)
    picked+=g[:n]
os.makedirs(out+'/amber',exist_ok=True)
for l,p,t in picked:
    name=os.path.relpath(p,root).replace('/','_')
    open(os.path.join(out,'amber',name),'wb').write(t)
# --- spirv seeds: the repo's binaries, and SPIRV-ASM blocks of the corpus assembled by spirv-as
os.makedirs(out+'/spirv',exist_ok=True)
for p in glob.glob(os.path.join(repo,'shaders','**','*.spv'),recursive=True):
    shutil.copy(p, os.path.join(out,'spirv',os.path.basename(p)))
n=0
for l,p,t in amb:
    if n>=80: break
    text=t.decode('utf-8','replace')
    for m in re.finditer(r'SHADER\s+(\w+)\s+\w+\s+SPIRV-ASM([^\n]*)\n(.*?)\nEND', text, re.S):
        env='vulkan1.0'
        if 'spv1.3' in m.group(2) or '1.3' in m.group(2): env='spv1.3'
        src=m.group(3)
        r=subprocess.run(['spirv-as','--target-env',env,'-o',os.path.join(tmp,'o.spv'),'-'],input=src.encode(),capture_output=True)
        if r.returncode!=0: continue
        b=open(os.path.join(tmp,'o.spv'),'rb').read()
        if len(b)>6000: continue
        h=hashlib.sha1(b).hexdigest()[:12]
        open(os.path.join(out,'spirv',m.group(1)+'_'+h+'.spv'),'wb').write(b)
        n+=1
# --- png seeds: tiny PNGs of every colour type and bit depth, plus the smallest golden
def png(w,h,ctype,depth,rows,plte=None,trns=None):
    def chunk(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)
    raw=b''.join(b'\x00'+r for r in rows)
    s=b'\x89PNG\r\n\x1a\n'+chunk(b'IHDR',struct.pack('>IIBBBBB',w,h,depth,ctype,0,0,0))
    if plte: s+=chunk(b'PLTE',plte)
    if trns: s+=chunk(b'tRNS',trns)
    return s+chunk(b'IDAT',zlib.compress(raw))+chunk(b'IEND',b'')
os.makedirs(out+'/png',exist_ok=True)
seeds={
 'rgba8_2x2.png':png(2,2,6,8,[bytes(range(8)),bytes(range(8,16))]),
 'rgb8_3x1.png':png(3,1,2,8,[bytes(range(9))]),
 'gray1_8x2.png':png(8,2,0,1,[b'\xa5',b'\x5a']),
 'gray16_2x1.png':png(2,1,0,16,[b'\x12\x34\xff\xff']),
 'grayalpha8_1x2.png':png(1,2,4,8,[b'\x80\xff',b'\x00\x10']),
 'rgba16_1x1.png':png(1,1,6,16,[bytes(range(8))]),
 'palette4_4x1.png':png(4,1,3,4,[b'\x01\x23'],plte=bytes(range(12)),trns=b'\x80'),
}
for k,v in seeds.items():
    open(os.path.join(out,'png',k),'wb').write(v)
shutil.copy(os.path.join(repo,'golden','shadow_cmp.png'), os.path.join(out,'png','shadow_cmp.png'))
