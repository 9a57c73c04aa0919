target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%"class.StructuredBuffer<unsigned int>" = type { i32 }

@"\01?primitive_count@@3IA" = external addrspace(3) global i32, align 4

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %2 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %3 = call i32 @dx.op.groupId.i32(i32 94, i32 0)
  %4 = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %5 = icmp eq i32 %4, 0
  br i1 %5, label %6, label %7

6:                                                ; preds = %0
  store i32 0, i32 addrspace(3)* @"\01?primitive_count@@3IA", align 4, !tbaa !22
  br label %7

7:                                                ; preds = %6, %0
  call void @dx.op.barrier(i32 80, i32 9)
  %8 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %1, i32 %3, i32 0, i8 1, i32 4)
  %9 = extractvalue %dx.types.ResRet.i32 %8, 0
  %10 = and i32 %4, 31
  %11 = shl i32 1, %10
  %12 = and i32 %9, %11
  %13 = icmp eq i32 %12, 0
  br i1 %13, label %16, label %14

14:                                               ; preds = %7
  %15 = atomicrmw add i32 addrspace(3)* @"\01?primitive_count@@3IA", i32 1 seq_cst, align 4
  br label %16

16:                                               ; preds = %14, %7
  %17 = phi i32 [ -1, %7 ], [ %15, %14 ]
  call void @dx.op.barrier(i32 80, i32 9)
  %18 = load i32, i32 addrspace(3)* @"\01?primitive_count@@3IA", align 4, !tbaa !22
  call void @dx.op.setMeshOutputCounts(i32 168, i32 3, i32 %18)
  %19 = load i32, i32 addrspace(3)* @"\01?primitive_count@@3IA", align 4, !tbaa !22
  %20 = icmp eq i32 %19, 0
  br i1 %20, label %35, label %21

21:                                               ; preds = %16
  %22 = icmp ult i32 %4, 3
  br i1 %22, label %23, label %32

23:                                               ; preds = %21
  %24 = and i32 %4, 1
  %25 = uitofp i32 %24 to float
  %26 = fmul fast float %25, 4.000000e+00
  %27 = fadd fast float %26, -1.000000e+00
  %28 = and i32 %4, 2
  %29 = uitofp i32 %28 to float
  %30 = fmul fast float %29, 2.000000e+00
  %31 = fadd fast float %30, -1.000000e+00
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 0, float %27, i32 %4)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 1, float %31, i32 %4)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 2, float 0.000000e+00, i32 %4)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 3, float 1.000000e+00, i32 %4)
  br label %32

32:                                               ; preds = %23, %21
  %33 = icmp eq i32 %17, -1
  br i1 %33, label %35, label %34

34:                                               ; preds = %32
  call void @dx.op.emitIndices(i32 169, i32 %17, i32 0, i32 1, i32 2)
  call void @dx.op.storePrimitiveOutput.i32(i32 172, i32 0, i32 0, i8 0, i32 %2, i32 %17)
  br label %35

35:                                               ; preds = %34, %32, %16
  ret void
}

; Function Attrs: nounwind
declare void @dx.op.emitIndices(i32, i32, i32, i32, i32) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32) #1

; Function Attrs: nounwind readnone
declare i32 @dx.op.groupId.i32(i32, i32) #1

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #1

; Function Attrs: nounwind
declare void @dx.op.storeVertexOutput.f32(i32, i32, i32, i8, float, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storePrimitiveOutput.i32(i32, i32, i32, i8, i32, i32) #0

; Function Attrs: noduplicate nounwind
declare void @dx.op.barrier(i32, i32) #2

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32) #3

; Function Attrs: nounwind
declare void @dx.op.setMeshOutputCounts(i32, i32, i32) #0

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #3

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }
attributes #2 = { noduplicate nounwind }
attributes #3 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.viewIdState = !{!8}
!dx.entryPoints = !{!9}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"ms", i32 6, i32 5}
!4 = !{!5, null, null, null}
!5 = !{!6}
!6 = !{i32 0, %"class.StructuredBuffer<unsigned int>"* undef, !"", i32 0, i32 0, i32 1, i32 12, i32 0, !7}
!7 = !{i32 1, i32 4}
!8 = !{[3 x i32] [i32 0, i32 4, i32 1]}
!9 = !{void ()* @main, !"main", !10, !4, !19}
!10 = !{null, !11, !15}
!11 = !{!12}
!12 = !{i32 0, !"SV_Position", i8 9, i8 3, !13, i8 4, i32 1, i8 4, i32 0, i8 0, !14}
!13 = !{i32 0, i32 1, i32 2}
!14 = !{i32 3, i32 15}
!15 = !{!16}
!16 = !{i32 0, !"UV_PRIMITIVE_ID", i8 5, i8 0, !17, i8 1, i32 1, i8 1, i32 0, i8 0, !18}
!17 = !{i32 0}
!18 = !{i32 3, i32 1}
!19 = !{i32 0, i64 16, i32 9, !20}
!20 = !{!21, i32 3, i32 32, i32 2, i32 0}
!21 = !{i32 32, i32 1, i32 1}
!22 = !{!23, !23, i64 0}
!23 = !{!"int", !24, i64 0}
!24 = !{!"omnipotent char", !25, i64 0}
!25 = !{!"Simple C/C++ TBAA"}
