target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%"hostlayout.class.StructuredBuffer<vector<min16float, 4> >" = type { <4 x float> }
%"hostlayout.class.RWStructuredBuffer<vector<min16float, 4> >" = type { <4 x float> }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %3 = call half @dx.op.loadInput.f16(i32 4, i32 1, i32 0, i8 0, i32 undef)
  %4 = call half @dx.op.loadInput.f16(i32 4, i32 1, i32 0, i8 1, i32 undef)
  %5 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %2, i32 0, i32 0, i8 15, i32 4)
  %6 = extractvalue %dx.types.ResRet.f32 %5, 0
  %7 = fptrunc float %6 to half
  %8 = extractvalue %dx.types.ResRet.f32 %5, 1
  %9 = fptrunc float %8 to half
  %10 = extractvalue %dx.types.ResRet.f32 %5, 2
  %11 = fptrunc float %10 to half
  %12 = extractvalue %dx.types.ResRet.f32 %5, 3
  %13 = fptrunc float %12 to half
  %14 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %2, i32 1, i32 0, i8 15, i32 4)
  %15 = extractvalue %dx.types.ResRet.f32 %14, 0
  %16 = fptrunc float %15 to half
  %17 = extractvalue %dx.types.ResRet.f32 %14, 1
  %18 = fptrunc float %17 to half
  %19 = extractvalue %dx.types.ResRet.f32 %14, 2
  %20 = fptrunc float %19 to half
  %21 = extractvalue %dx.types.ResRet.f32 %14, 3
  %22 = fptrunc float %21 to half
  %23 = fadd fast half %16, %7
  %24 = fadd fast half %18, %9
  %25 = fadd fast half %20, %11
  %26 = fadd fast half %22, %13
  %27 = fpext half %23 to float
  %28 = fpext half %24 to float
  %29 = fpext half %25 to float
  %30 = fpext half %26 to float
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %1, i32 0, i32 0, float %27, float %28, float %29, float %30, i8 15, i32 4)
  %31 = fsub fast half %7, %16
  %32 = fsub fast half %9, %18
  %33 = fsub fast half %11, %20
  %34 = fsub fast half %13, %22
  %35 = fpext half %31 to float
  %36 = fpext half %32 to float
  %37 = fpext half %33 to float
  %38 = fpext half %34 to float
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %1, i32 1, i32 0, float %35, float %36, float %37, float %38, i8 15, i32 4)
  %39 = fmul fast half %3, 0xH3C04
  %40 = fmul fast half %4, 0xH3C04
  call void @dx.op.storeOutput.f16(i32 5, i32 0, i32 0, i8 0, half %39)
  call void @dx.op.storeOutput.f16(i32 5, i32 0, i32 0, i8 1, half %40)
  call void @dx.op.storeOutput.f16(i32 5, i32 0, i32 0, i8 2, half %39)
  call void @dx.op.storeOutput.f16(i32 5, i32 0, i32 0, i8 3, half %40)
  ret void
}

; Function Attrs: nounwind readnone
declare half @dx.op.loadInput.f16(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f16(i32, i32, i32, i8, half) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32) #2

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32) #1

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #2

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.viewIdState = !{!10}
!dx.entryPoints = !{!11}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 2}
!2 = !{i32 1, i32 7}
!3 = !{!"ps", i32 6, i32 2}
!4 = !{!5, !8, null, null}
!5 = !{!6}
!6 = !{i32 0, %"hostlayout.class.StructuredBuffer<vector<min16float, 4> >"* undef, !"", i32 0, i32 0, i32 1, i32 12, i32 0, !7}
!7 = !{i32 1, i32 16}
!8 = !{!9}
!9 = !{i32 0, %"hostlayout.class.RWStructuredBuffer<vector<min16float, 4> >"* undef, !"", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !7}
!10 = !{[8 x i32] [i32 6, i32 4, i32 0, i32 0, i32 0, i32 0, i32 5, i32 10]}
!11 = !{void ()* @main, !"main", !12, !4, !21}
!12 = !{!13, !18, null}
!13 = !{!14, !16}
!14 = !{i32 0, !"SV_Position", i8 9, i8 3, !15, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!15 = !{i32 0}
!16 = !{i32 1, !"V", i8 8, i8 0, !15, i8 2, i32 1, i8 2, i32 1, i8 0, !17}
!17 = !{i32 3, i32 3}
!18 = !{!19}
!19 = !{i32 0, !"SV_Target", i8 8, i8 16, !15, i8 0, i32 1, i8 4, i32 0, i8 0, !20}
!20 = !{i32 3, i32 15}
!21 = !{i32 0, i64 48}
